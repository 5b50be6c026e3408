# Third-party dependencies, all from Debian's packages (scripts/install-deps.sh).

find_package(nlohmann_json 3.10 REQUIRED)
find_package(Threads REQUIRED)
# Compressed reports: liblzma (xz), zlib (gzip), libzstd (zstd), Debian's -dev packages.
include(FlashscopeCompression)
# The history store (history/, docs/history.md): an SQLite file by default (libsqlite3-dev, linked
# statically), PostgreSQL for a team (libpq-dev: its header; libpq is loaded at run time).
find_package(SQLite3 REQUIRED)
find_package(PostgreSQL REQUIRED)

# fs_absl: Abseil's static archives (FlashscopeAbseil.cmake says why static).
include(FlashscopeAbseil)
add_library(fs_absl INTERFACE)
flashscope_link_static_abseil(fs_absl)
