"""``python -m pokerlab``: the ``pokerlab`` command line (see :mod:`pokerlab.cli.entry`)."""

from pokerlab.cli.entry import main

if __name__ == "__main__":
    main()
