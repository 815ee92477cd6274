import { startTracing } from './tracing';

// Imported first by main.ts: the instrumentations patch http, express, graphql and pg as they
// are first loaded, so tracing starts before any of the app's modules are.
startTracing();
