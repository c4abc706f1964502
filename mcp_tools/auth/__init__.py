"""The caller of the endpoint, and the endpoints as OAuth protected resources."""
