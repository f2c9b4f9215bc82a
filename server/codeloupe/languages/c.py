"""C: ``#include`` names the files a file uses (a header, and the sources that share
its stem), functions anywhere, every fact a function's."""

from __future__ import annotations

import re

from .base import Language, MethodsApart, ModuleFacts

# an include source that names a file: a path, or a source / header file name
INCLUDE_PATH = re.compile(r"(/|\.(h|hh|hpp|hxx|inc|c|cc|cpp|cxx|rb)$)")


class C(Language):
    """C (and the rules C++ shares with it)."""

    name = grammar = "c"
    extensions = (".c", ".h")
    family = "c"
    module_facts = ModuleFacts.DROP  # a fact at the top level is a prototype's parameter
    methods_apart = MethodsApart.ANYWHERE
    includes_files = True
    global_functions = True
    preprocessor = True
    function_macros = ("(preproc_function_def name: (identifier) @name parameters: (preproc_params) @params"
                       " value: (preproc_arg) @value)")
    external_types = frozenset({
        "unsigned", "signed", "size_t", "ssize_t", "int8_t", "int16_t", "int32_t", "int64_t",
        "uint8_t", "uint16_t", "uint32_t", "uint64_t",
    })

    def names_file(self, source: str) -> bool:
        """``#include "x.h"`` / ``<sys/x.h>``: a path or a source file's name."""
        return bool(INCLUDE_PATH.search(source))


C_LANG = C()
