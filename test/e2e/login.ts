import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';

/** An official's account as the config holds it and as the official types it. */
export interface Official {
  name: string;
  role: 'arbiter' | 'organiser';
  password: string;
}

/**
 * Logs in as an official does: opens an official page, is sent to the login form, fills it and
 * submits; the browser context then holds the session cookie. Answers the page, back on `path`.
 */
export async function loginThroughForm(
  browser: Browser,
  url: string,
  who: Official,
  path = '/arbiter?lang=en',
  viewport = { width: 1280, height: 800 },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await page.goto(`${url}${path}`);
  await expect.poll(() => new URL(page.url()).pathname).toBe('/login');
  expect(new URL(page.url()).searchParams.get('next')).toBe(path);
  await page.locator('#login-name').fill(who.name);
  await page.locator('#login-password').fill(who.password);
  await page.locator('.login-form button[type="submit"]').click();
  await expect.poll(() => page.url()).toBe(`${url}${path}`);
  const cookies = await context.cookies();
  const session = cookies.find((c) => c.name === 'boardcast_session');
  expect(session?.httpOnly).toBe(true);
  expect(session?.sameSite).toBe('Strict');
  return { context, page };
}

/** Every address a page produces: its links, forms and the feed's websocket (none may carry a secret). */
export async function pageUrls(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('a[href]')].map((a) => (a as HTMLAnchorElement).href).concat([...document.querySelectorAll('form[action]')].map((f) => (f as HTMLFormElement).action)),
  );
}
