"""The schema family: a tool's input and output JSON Schemas, read from DRF views.

``fields`` maps URL converters and serializer fields, ``queries`` a list view's filter
backends and paginator, ``input_schema`` assembles one flat ``inputSchema``,
``output_schema`` resolves an ``outputSchema``, ``validators`` compiles the argument
validator, ``spectacular`` reads drf-spectacular's annotations where it is installed, and
``introspection`` sets a view up for one action so that all of them read the same view.
"""
