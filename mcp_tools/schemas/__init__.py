"""The schema family: a tool's input and output JSON Schemas, read from DRF views.

``fields`` maps URL converters and serializer fields, ``queries`` a list view's filter
backends and paginator, ``inputs`` assembles one flat ``inputSchema``, ``outputs`` resolves
an ``outputSchema``, ``validators`` compiles the argument validator, and ``introspection``
sets a view up for one action so that all of them read the same view.
"""
