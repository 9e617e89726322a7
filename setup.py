"""The package's one compiled module, optional (pyproject.toml holds everything else).

:mod:`structcrawl.visible._cwalk` (the visible walk in Cython over lxml's public C API;
docs/speed.md) is built where Cython, lxml's headers and a C compiler are at hand; where the
build fails the package installs without it and the Python walk serves
(:data:`structcrawl.visible.walk.COMPILED`). It is built against the lxml it will run with:
``make venv`` gives the isolated build the same constraints as the environment.
"""

from __future__ import annotations

from setuptools import Extension, setup


def _extensions() -> list[Extension]:
    try:
        import lxml
        from Cython.Build import cythonize
    except ImportError:
        return []
    walk = Extension(
        "structcrawl.visible._cwalk",
        ["structcrawl/visible/_cwalk.pyx"],
        include_dirs=lxml.get_include(),
        optional=True,
    )
    return cythonize([walk], language_level=3, quiet=True)


setup(ext_modules=_extensions())
