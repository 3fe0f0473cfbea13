#!/usr/bin/env node
// The development entry: runs the CLI from the TypeScript sources through tsx (tests spawn it, so
// they never run a stale build). The installed `boardcast` bin is the compiled dist/daemon/cli/main.js.
import { register } from 'tsx/esm/api';

register();
await import('./main.ts');
