import request from 'supertest';
import { createTestApp, type TestApp } from '../../support/test-app';

const METRICS_TOKEN = 'metrics-scraper-token-0123456789';

describe('/metrics behind METRICS_TOKEN (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ METRICS_TOKEN });
  });
  afterAll(async () => {
    await t.close();
  });

  it('R-OP-1 without a token: 401 in the house shape with WWW-Authenticate, no metrics', async () => {
    const res = await request(t.app.getHttpServer()).get('/metrics').expect(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.body).toEqual({ errors: [{ message: expect.stringContaining('METRICS_TOKEN'), extensions: { code: 'UNAUTHENTICATED' } }] });
    expect(res.text).not.toContain('process_cpu');
  });

  it('R-OP-1 a wrong token or another scheme is refused the same way', async () => {
    const wrong = await request(t.app.getHttpServer()).get('/metrics').set('authorization', `Bearer ${METRICS_TOKEN}x`).expect(401);
    expect(wrong.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    await request(t.app.getHttpServer())
      .get('/metrics')
      .set('authorization', `Basic ${btoa(`metrics:${METRICS_TOKEN}`)}`)
      .expect(401);
    // Refused before the method gate: a POST without the token learns nothing either.
    await request(t.app.getHttpServer()).post('/metrics').expect(401);
  });

  it('R-OP-1 the token reads the metrics, the event-loop delay p99 among them', async () => {
    const res = await request(t.app.getHttpServer()).get('/metrics').set('authorization', `Bearer ${METRICS_TOKEN}`).expect(200);
    expect(res.text).toMatch(/^nodejs_eventloop_lag_p99_seconds \d/m);
    expect(res.text).toContain('process_resident_memory_bytes');
  });

  it('R-OP-1 health stays open: probes carry no token', async () => {
    await request(t.app.getHttpServer()).get('/health').expect(200);
  });
});
