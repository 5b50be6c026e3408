# Third-party dependencies, all from Debian's packages (scripts/install-deps.sh).

find_package(nlohmann_json 3.10 REQUIRED)
find_package(Threads REQUIRED)
# The history store (history/, docs/history.md): an SQLite file by default, PostgreSQL for a team.
find_package(SQLite3 REQUIRED)     # libsqlite3-dev
find_package(PostgreSQL REQUIRED)  # libpq-dev

# fs_absl: Abseil's static archives (FlashscopeAbseil.cmake says why static).
include(FlashscopeAbseil)
add_library(fs_absl INTERFACE)
flashscope_link_static_abseil(fs_absl)
