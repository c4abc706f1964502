"""The protocol core: JSON-RPC messages, protocol versions and eras, results, projection.

Nothing in this package imports Django or Django REST framework (a test enforces it), so
the rules of the wire can be read, and tested, on their own.
"""
