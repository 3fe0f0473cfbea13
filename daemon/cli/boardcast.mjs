#!/usr/bin/env node
// The installed `boardcast` binary: load TypeScript through tsx, then run the CLI.
import { register } from 'tsx/esm/api';

register();
await import('./main.ts');
