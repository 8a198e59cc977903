"""Launch the binding explorer: ``python app.py`` (flags: ``--help``); the page itself is ``explorer/page.py``, which
an installed ``binding-explorer app`` runs too."""

from explorer.page import main

if __name__ == "__main__":
    raise SystemExit(main())
