import { context, trace } from '@opentelemetry/api';
import express from 'express';
import { buildSchema, execute, parse } from 'graphql';
import request from 'supertest';
import { useInMemoryTracing } from '../../../test/support/in-memory-tracing';
import { withRootFieldSpans } from '../graphql-root-spans';
import { httpTracingMiddleware, labelRequestSpan } from '../http-tracing.middleware';

const exporter = useInMemoryTracing();

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const CALLER_SPAN = 'b7ad6b7169203331';

describe('the server span (R-OP-8)', () => {
  /** Where the handler ran: whether its work was traced, and a span it tried to start. */
  let seen: { recording: boolean | undefined; childRecording: boolean } | undefined;
  const app = express();
  app.use(httpTracingMiddleware);
  app.use(express.json());
  app.post('/graphql', (req, res) => {
    labelRequestSpan(req, () => 'query Block');
    const child = trace.getTracer('test').startSpan('work');
    seen = { recording: trace.getActiveSpan()?.isRecording(), childRecording: child.isRecording() };
    child.end();
    res.status(req.body.fail ? 503 : 200).json({ ok: true });
  });
  app.get('/health', (_req, res) => {
    seen = { recording: trace.getActiveSpan()?.isRecording(), childRecording: trace.getTracer('test').startSpan('probe').isRecording() };
    res.json({ ok: true });
  });
  beforeEach(() => (seen = undefined));

  it("R-OP-8 a sampled caller's traceparent: one server span in its trace, named after the operation, the work under it", async () => {
    await request(app)
      .post('/graphql?x=1')
      .set('traceparent', `00-${TRACE_ID}-${CALLER_SPAN}-01`)
      .set('x-request-id', 'req-1')
      .send({ query: '{ me { userId } }' })
      .expect(200);
    expect(seen).toEqual({ recording: true, childRecording: true });
    const [work, server] = exporter.getFinishedSpans();
    expect(server.name).toBe('POST /graphql query Block');
    expect(server.spanContext().traceId).toBe(TRACE_ID);
    expect(server.parentSpanContext?.spanId).toBe(CALLER_SPAN);
    expect(server.attributes).toMatchObject({ 'http.request.method': 'POST', 'url.path': '/graphql', 'http.response.status_code': 200 });
    expect(server.status.code).toBe(0);
    expect(work.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
  });

  it("R-OP-8 a caller's unsampled traceparent: nothing under the request is traced, not even a span started inside it", async () => {
    await request(app).post('/graphql').set('traceparent', `00-${TRACE_ID}-${CALLER_SPAN}-00`).send({}).expect(200);
    expect(seen).toEqual({ recording: undefined, childRecording: false });
    expect(exporter.getFinishedSpans()).toHaveLength(0);
  });

  it('R-OP-8 a request without one is a new trace (the sampler decides); a 5xx marks the span as failed', async () => {
    await request(app).post('/graphql').send({ fail: true }).expect(503);
    const [, server] = exporter.getFinishedSpans();
    expect(server.parentSpanContext).toBeUndefined();
    expect(server.attributes).toMatchObject({ 'http.response.status_code': 503, 'error.type': '503' });
    expect(server.status.code).toBe(2);
  });

  it('R-OP-8 probes make no span, and nothing under them is traced', async () => {
    await request(app).get('/health').set('traceparent', `00-${TRACE_ID}-${CALLER_SPAN}-01`).expect(200);
    expect(seen).toEqual({ recording: undefined, childRecording: false });
    expect(exporter.getFinishedSpans()).toHaveLength(0);
  });
});

describe('the root fields spans (R-OP-8)', () => {
  // As Nest hands it over: resolvers attached, then the schema transformed.
  const schema = buildSchema(`
    type Query { block: Block, me: String }
    type Block { text: String, lines: [String] }
    type Mutation { record: String }
  `);
  const fields = schema.getQueryType()!.getFields();
  fields.block.resolve = async () => ({ text: 't', lines: ['a'] });
  fields.me.resolve = () => Promise.reject(Object.assign(new Error('secret-value-7'), { extensions: { code: 'NOT_FOUND' } }));
  schema.getMutationType()!.getFields().record.resolve = () => 'done';
  withRootFieldSpans(schema);

  const run = (document: string) => execute({ schema, document: parse(document) });

  it('R-OP-8 under a traced request: a span per root field, named and typed, with the operation name; none for the fields under it', async () => {
    const server = trace.getTracer('test').startSpan('server');
    const result = await context.with(trace.setSpan(context.active(), server), () => run('query Block { block { text lines } }'));
    server.end();
    expect(result.data).toEqual({ block: { text: 't', lines: ['a'] } });
    const [field] = exporter.getFinishedSpans();
    expect(field.name).toBe('graphql.resolve block');
    expect(field.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    expect(field.attributes).toEqual({
      'graphql.field.name': 'block',
      'graphql.operation.type': 'query',
      'graphql.operation.name': 'Block',
    });
    expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(['graphql.resolve block', 'server']);
  });

  it("R-OP-8 a failed field: its span says the error's code, never its message; the error reaches the response", async () => {
    const server = trace.getTracer('test').startSpan('server');
    const result = await context.with(trace.setSpan(context.active(), server), () => run('{ me }'));
    server.end();
    expect(result.errors?.[0].message).toBe('secret-value-7');
    const [field] = exporter.getFinishedSpans();
    expect(field.attributes['error.type']).toBe('NOT_FOUND');
    expect(field.status.code).toBe(2);
    expect(JSON.stringify([field.attributes, field.status, field.events])).not.toContain('secret-value');
  });

  it('R-OP-8 outside a traced request the resolvers run as they are, with no span', async () => {
    expect((await run('mutation { record }')).data).toEqual({ record: 'done' });
    expect(exporter.getFinishedSpans()).toHaveLength(0);
  });
});
