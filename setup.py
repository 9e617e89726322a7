"""The package's compiled modules, optional (pyproject.toml holds everything else).

Two passes over a page's tree in Cython over lxml's public C API (docs/speed.md): the
visible walk (:mod:`structcrawl.visible._cwalk`) and the element index's pass
(:mod:`structcrawl.core._cindex`). They are built where Cython, lxml's headers and a C
compiler are at hand; where the build fails the package installs without them and the Python
passes serve (:data:`structcrawl.visible.walk.COMPILED`,
:data:`structcrawl.core._index.COMPILED`). They are built against the lxml they will run with:
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
    compiled = [
        Extension(name, [source], include_dirs=lxml.get_include(), optional=True)
        for name, source in (
            ("structcrawl.visible._cwalk", "structcrawl/visible/_cwalk.pyx"),
            ("structcrawl.core._cindex", "structcrawl/core/_cindex.pyx"),
        )
    ]
    return cythonize(compiled, language_level=3, quiet=True)


setup(ext_modules=_extensions())
