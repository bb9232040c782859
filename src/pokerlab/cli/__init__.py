"""The ``pokerlab`` command line: thin Typer wrappers over the library façades."""
