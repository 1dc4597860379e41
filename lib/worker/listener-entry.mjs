// The listener thread's entry: a worker thread does not inherit the `--import tsx` loader of the
// process, so it registers tsx itself before it loads the TypeScript listener.
import { register } from 'tsx/esm/api';

register();
await import('./listener.ts');
