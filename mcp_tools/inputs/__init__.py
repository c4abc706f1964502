"""A view's asks for input: the questions, the handshake-era relay, the signed state."""
