/** The project's one Result type lives in protocols/ so every layer and edge can use it. */
export { err, ok, type Result } from '../../protocols/result.ts';
