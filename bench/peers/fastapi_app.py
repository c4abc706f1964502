"""fastapi-mcp (0.4.0): one FastAPI route, served directly and as the tool of the same name."""

from fastapi import FastAPI
from fastapi_mcp import FastApiMCP

app = FastAPI()


@app.get("/trivial", operation_id="trivial")
async def trivial() -> dict:
    """Return a three-key object."""
    return {"status": "ok", "count": 3, "items": ["a", "b"]}


FastApiMCP(app).mount_http()
