/** The one HTML page of the viewer; the script picks the view from the URL path. */
export function viewerHtml(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>boardcast</title>
<link rel="stylesheet" href="/chessground/chessground.base.css">
<link rel="stylesheet" href="/chessground/chessground.brown.css">
<link rel="stylesheet" href="/chessground/chessground.cburnett.css">
<link rel="stylesheet" href="/viewer.css">
</head>
<body>
<div id="app"></div>
<script type="module" src="/viewer.js"></script>
</body>
</html>
`;
}
