"""What a tool is, and how one is built from a routed view."""
