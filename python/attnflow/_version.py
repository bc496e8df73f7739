"""Version of the attnflow package: the version of the C library it is
released with (configure.ac's AC_INIT; tests/test_python.sh checks that
the two agree)."""
__version__ = "0.1.0"
