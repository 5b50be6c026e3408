import flashscope
import no_such_package_for_flashscope_tests  # noqa: F401
