"""The LSP features, one module a group of methods (``lifecycle``, ``sync``,
``symbols``, ``hierarchy``, ``hover``, ``lens``, ``commands``); each calls into the
engine and the shared services of ``lsp`` and never imports another feature."""
