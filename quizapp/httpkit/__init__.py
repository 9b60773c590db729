"""The HTTP layer every blueprint shares: JSON request parsing and responses (:mod:`.jsonapi`), the error
envelope (:mod:`.errors`), the cross-site write guard of the JSON API (:mod:`.json_writes`), the page kit of
the browser pages (security headers, CSRF, language, layout helpers: :mod:`.headers`, :mod:`.csrf`,
:mod:`.pagekit`) and the OpenAPI building blocks each blueprint describes its routes with (:mod:`.openapi`).

This package imports no blueprint package: the blueprints import it, never each other.
"""
