import { execFileSync } from 'node:child_process';

/**
 * Whether socat (real pseudo-terminals) is on this machine. When it is not, the suite says so
 * loudly and skips: .ci/run installs socat, so in CI these suites always run.
 */
export function socatAvailable(suite: string): boolean {
  try {
    execFileSync('socat', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    console.warn(`SKIPPING ${suite} e2e: socat is not installed (apt-get install socat)`);
    return false;
  }
}
