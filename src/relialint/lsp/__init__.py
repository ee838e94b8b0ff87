"""The language server: the run, over JSON-RPC, for editors."""
