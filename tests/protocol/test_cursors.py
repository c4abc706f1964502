"""Opaque tools/list cursors (docs/protocol.md, handshake era): only the server's own."""

import pytest

from mcp_tools.protocol.cursors import decode_cursor, encode_cursor
from mcp_tools.protocol.jsonrpc import JSONRPCError


@pytest.mark.parametrize("cursor", [5, "", "!!", "b2Zmc2V0OjA=", "b2Zmc2V0Ojk5", "eA==", "x" * 100])
def test_a_cursor_the_server_did_not_mint_is_invalid_params(cursor):
    with pytest.raises(JSONRPCError) as excinfo:
        decode_cursor(cursor, total=10)
    assert excinfo.value.code == -32602


def test_cursors_round_trip():
    assert decode_cursor(encode_cursor(7), total=10) == 7
