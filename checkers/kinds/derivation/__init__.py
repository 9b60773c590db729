"""The ``derivation`` answer kind, one unit: the kind (:mod:`.checker`), its page widget (``partial.html``)
and its browser behaviour (``kind.js``). Importing it registers the kind."""

from .checker import *  # noqa: F401,F403  (the kind's public names, as when it was one module)
from . import form, keysteps  # noqa: F401  (a line's form, and key steps)
