"""What every capability stands on: the call's context, routes, the shared cache, errors."""
