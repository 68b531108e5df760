#!/usr/bin/python3
# Reads every attribute and dataset of an HDF5 file through h5py (libhdf5 alone, no code of
# mpimon), going on past objects it cannot read: ci/fuzz_triage.sh's second plain reader, since
# h5dump gives up at the first broken object and so never reaches what mpimon read. Exit 0 when
# it got through the file (errors included), 1 when libhdf5 refuses to open it.
import sys

import h5py


def read_attributes(obj):
    for key in list(obj.attrs.keys()):
        try:
            obj.attrs[key]
        except Exception:
            pass


def read_object(_name, obj):
    try:
        read_attributes(obj)
        if isinstance(obj, h5py.Dataset):
            obj[()]
    except Exception:
        pass


try:
    file = h5py.File(sys.argv[1], "r")
except Exception:
    sys.exit(1)
read_attributes(file)
try:
    file.visititems(read_object)
except Exception:
    pass
