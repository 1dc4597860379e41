import { buildIfStale } from './production-build';

/* `npm test`'s build step, and docs:pictures': the production build, once, when stale (./production-build.ts). */
process.exitCode = await buildIfStale();
