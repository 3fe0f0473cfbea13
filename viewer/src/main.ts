import { arbiterDeskPage } from './arbiter-desk.ts';
import { demoPage } from './demo.ts';
import { FeedClient } from './feed-client.ts';
import { gamePage } from './game-page.ts';
import { hallPage } from './hall-page.ts';
import { initialI18n } from './i18n.ts';
import { overviewPage } from './overview.ts';
import { replayPage } from './replay-page.ts';

/** Routes: / (overview), /game/:id, /arbiter (desk), /hall (the organiser's hall page), /arbiter/:id, /arbiter/replay/:id (officials, after /login), /demo?tables=…&rotate=… */
const root = document.getElementById('app')!;
const i18n = initialI18n();
document.documentElement.lang = i18n.lang;
const path = location.pathname;
const arbiterMatch = /^\/arbiter(?:\/(.*))?$/.exec(path);
const arbiterGame = arbiterMatch?.[1] ? decodeURIComponent(arbiterMatch[1]) : null;
// Officials' pages authenticate with the session cookie (the feed at its upgrade too): no secret in the page or any URL.
const feed = new FeedClient();
// Tests and operators can inspect the feed client (counters, status) from the console.
(window as unknown as { boardcast: unknown }).boardcast = { feed };

const gameMatch = /^\/game\/(.+)$/.exec(path);
const replayMatch = /^\/arbiter\/replay\/(.+)$/.exec(path);
/** GET with the arbiter's session cookie (same origin). */
const arbiterGet = (url: string): Promise<Response> => fetch(url, { credentials: 'same-origin' });
if (replayMatch) void replayPage(root, i18n, decodeURIComponent(replayMatch[1]!), arbiterGet);
else if (gameMatch) gamePage(root, i18n, feed, decodeURIComponent(gameMatch[1]!), false);
else if (arbiterGame) gamePage(root, i18n, feed, arbiterGame, true);
else if (arbiterMatch) void arbiterDeskPage(root, i18n, feed);
else if (path === '/hall') void hallPage(root, i18n, feed);
else if (path === '/demo') void demoPage(root, i18n, feed);
else void overviewPage(root, i18n, feed);
