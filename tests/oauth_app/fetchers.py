"""DOT's client ID metadata document fetcher, for the tests' own document on 127.0.0.1.

DOT's ``SafeMetadataFetcher`` refuses any address that is not public (SSRF hardening), so
the document a test serves on loopback needs this: https still, the test's own certificate
as the one trusted, ``127.0.0.1`` only, and DOT's own reading of the answer.
"""

import os

import urllib3
from oauth2_provider.cimd import CIMDError, SafeMetadataFetcher, _validate_client_id_url

#: The PEM certificate the test's document server presents (and the only one trusted).
CA_ENV = "MCP_TESTS_CIMD_CA"


class LoopbackMetadataFetcher(SafeMetadataFetcher):
    def fetch(self, client_id):
        parsed = _validate_client_id_url(client_id)
        if parsed.hostname != "127.0.0.1" or CA_ENV not in os.environ:
            raise CIMDError("the tests fetch client ID metadata documents from 127.0.0.1 only")
        pool = urllib3.HTTPSConnectionPool(
            "127.0.0.1",
            parsed.port,
            ca_certs=os.environ[CA_ENV],
            timeout=urllib3.Timeout(total=5),
            retries=False,
            maxsize=1,
        )
        try:
            response = pool.urlopen(
                "GET",
                parsed.path,
                headers={"Accept": "application/json"},
                redirect=False,
                preload_content=False,
            )
            try:
                return self._read_document(response)
            finally:
                response.release_conn()
        except urllib3.exceptions.HTTPError as exc:
            raise CIMDError(f"could not fetch client_id document: {exc}") from exc
        finally:
            pool.close()
