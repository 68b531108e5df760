# Copies mpimon's data files from the source tree SOURCE into DEST (the build tree's
# share/mpimon), laid out as `cmake --install` lays them out in PREFIX/share/mpimon, so the mpimon
# of the build tree finds them the way an installed one does (harness/.../locations.hpp).
#   cmake -DSOURCE=dir -DDEST=dir -P stage_data.cmake
file(GLOB scripts ${SOURCE}/analysis/scripts/*.py)
file(COPY ${scripts} DESTINATION ${DEST}/scripts)
file(COPY ${SOURCE}/analysis/report/report.html ${SOURCE}/analysis/report/report.js DESTINATION ${DEST}/report)
# plotly.js comes from npm (ci/install-deps.sh); without it `mpimon report` says it is missing.
set(plotly ${SOURCE}/analysis/report/node_modules/plotly.js-dist-min)
if(EXISTS ${plotly}/plotly.min.js)
  file(COPY ${plotly}/plotly.min.js ${plotly}/package.json DESTINATION ${DEST}/report/node_modules/plotly.js-dist-min)
endif()
file(COPY ${SOURCE}/docs/defects.md DESTINATION ${DEST}/docs)
