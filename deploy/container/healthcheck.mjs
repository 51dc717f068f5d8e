/* global fetch, AbortSignal */
// The image's HEALTHCHECK: exits 0 when the server's /health answers 200 within 2 s, else 1.
// Plain Node (fetch), since slim and distroless images have no curl or wget. The URL is
// http://127.0.0.1:$VESTA_PORT/health (8080 by default); VESTA_HEALTH_URL overrides it, e.g. for
// `vesta server`, whose /health is on --metrics-port.
const url =
  process.env.VESTA_HEALTH_URL ?? `http://127.0.0.1:${process.env.VESTA_PORT ?? '8080'}/health`;
try {
  const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
  process.exitCode = response.status === 200 ? 0 : 1;
} catch {
  process.exitCode = 1;
}
