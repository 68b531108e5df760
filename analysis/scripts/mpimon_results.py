"""Reading mpimon's results files for every script: the one reader of their layout (docs/overhead.md,
docs/apps.md): the format attribute, /configuration (string attributes), the columnar tables
(/analysis, /pairs) and the launches (/launches/NNNNNN, attributes and raw samples).

The tests' checkers (cli/tests/check_*.py) read the files with h5py on their own, on purpose: they
are the second reader that this one is checked against. Needs python3-h5py and python3-numpy.
"""

import sys

RESULTS_FORMATS = ("mpimon-overhead", "mpimon-apps")


def text(value):
    """An HDF5 string (bytes or str) as str."""
    return value.decode() if isinstance(value, bytes) else str(value)


def _open(path, formats):
    import h5py
    f = h5py.File(path, "r")
    kind = text(f.attrs.get("format", ""))
    if kind not in formats:
        f.close()
        sys.exit(f"{path}: not an {' or '.join(formats)} results file")
    return f, kind


def read_table(path, name="analysis", formats=RESULTS_FORMATS):
    """A columnar table as a dict of numpy arrays (strings as str), /configuration as a dict of
    strings, and the file's format; exits naming the file when the table is not there."""
    import numpy as np
    f, kind = _open(path, formats)
    with f:
        if name not in f:
            sys.exit(f"{path}: no /{name} table yet (run or resume the sweep to the end)")
        table = {}
        for column, dataset in f[name].items():
            values = dataset[()]
            if values.dtype.kind in "OS":
                values = np.array([text(v) for v in values])
            table[column] = values
        config = {k: text(v) for k, v in f["configuration"].attrs.items()} if "configuration" in f else {}
    return table, config, kind


def read_configuration(path, formats=RESULTS_FORMATS):
    """/configuration as a dict of strings, and the file's format."""
    f, kind = _open(path, formats)
    with f:
        return {k: text(v) for k, v in f["configuration"].attrs.items()}, kind


def launches(path, formats=RESULTS_FORMATS):
    """Each launch in the order they ran: (name, attributes as strings, benchmarks), benchmarks
    being a list of (op, size, raw samples in ns) for an overhead launch that kept them."""
    f, _ = _open(path, formats)
    with f:
        for name, group in f["launches"].items():
            attributes = {k: text(v) for k, v in group.attrs.items()}
            benchmarks = []
            if "samples_indptr" in group:
                bounds, samples = group["samples_indptr"][()], group["samples"][()]
                for i, (op, size) in enumerate(zip(group["ops"][()], group["sizes"][()])):
                    benchmarks.append((text(op), int(size), samples[bounds[i]:bounds[i + 1]]))
            yield name, attributes, benchmarks
