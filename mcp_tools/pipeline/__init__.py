"""One run of a view for the client: arguments, inner request, view, result."""
