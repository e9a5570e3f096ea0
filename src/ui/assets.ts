/** The page's only style sheet and script, served from the page's own origin (the CSP allows nothing else). */

export const APP_CSS =
  `
:root { color-scheme: light; --fg: #1d232b; --muted: #5b6573; --line: #d9dee5; --bg: #f6f7f9; --panel: #fff; --accent: ` +
  `#1f5fbf; --warn: #9a5b00; --bad: #b42318; --good: #1a7f37; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; color: var(--fg); ` +
  `background: var(--bg); }
header.top { display: flex; align-items: center; gap: 24px; padding: 10px 24px; background: #15202f; color: #fff; }
header.top .brand { font-weight: 600; letter-spacing: .2px; }
header.top nav { display: flex; gap: 4px; }
header.top nav a { color: #c9d4e3; text-decoration: none; padding: 6px 12px; border-radius: 6px; }
header.top nav a[aria-current="page"], header.top nav a:hover { background: #2a3a52; color: #fff; }
main { padding: 20px 24px 40px; max-width: 1400px; }
h1 { font-size: 22px; margin: 4px 0 6px; }
h1 code { font-size: 18px; }
h2 { font-size: 16px; margin: 0 0 10px; }
.panel h2:not(:first-child) { margin-top: 20px; }
h3 { font-size: 14px; margin: 14px 0 6px; }
.lead { color: var(--muted); margin: 0 0 14px; }
.note { color: var(--muted); margin: 6px 0; }
.none { color: var(--muted); font-style: italic; }
.empty { color: var(--muted); padding: 12px 0; }
code { font: 12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; word-break: break-all; }
a { color: var(--accent); }
.crumbs { margin: 0; color: var(--muted); }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px; margin: 14px 0; }
.filters { display: flex; flex-wrap: wrap; gap: 12px; align-items: end; background: var(--panel); border: 1px solid ` +
  `var(--line); border-radius: 8px; padding: 10px 14px; margin-bottom: 12px; }
.filters label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); gap: 3px; }
select, input, button { font: inherit; }
select, input[type=password] { padding: 4px 6px; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
button { padding: 5px 12px; border: 1px solid #b8c1cc; border-radius: 6px; background: #fff; cursor: pointer; }
button:hover:not([disabled]) { background: #eef2f7; }
button[disabled] { opacity: .45; cursor: not-allowed; }
button.button-confirm { background: var(--good); border-color: var(--good); color: #fff; }
button.button-retry { background: var(--accent); border-color: var(--accent); color: #fff; }
button.button-cancel { background: #fff; border-color: var(--bad); color: var(--bad); }
button.button-confirm:hover:not([disabled]), button.button-retry:hover:not([disabled]) { filter: brightness(1.1); background-image: none; }
button.copy { padding: 1px 8px; font-size: 12px; margin-left: 6px; vertical-align: middle; }
.reset { font-size: 13px; }
table { border-collapse: collapse; width: 100%; background: var(--panel); }
table.flows { border: 1px solid var(--line); border-radius: 8px; }
th, td { text-align: left; padding: 7px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 12px; color: var(--muted); font-weight: 600; background: #fafbfc; }
tr.attention td { background: #fff8ec; }
td.purpose { min-width: 220px; max-width: 340px; white-space: pre-wrap; overflow-wrap: anywhere; }
span.purpose { white-space: pre-wrap; overflow-wrap: anywhere; }
td.flow { white-space: nowrap; }
td.target .meg-url p { margin: 0; overflow-wrap: normal; white-space: nowrap; }
td.nowrap, th.nowrap { white-space: nowrap; }
time span { white-space: nowrap; }
a.flow-link { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
td.target .meg-url-host { display: none; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.meg-url p { margin: 2px 0; overflow-wrap: anywhere; }
.meg-url-host { color: var(--muted); font-size: 12px; }
mark.meg-registrable { background: #ffe58a; color: #000; font-weight: 600; padding: 0 1px; border-radius: 2px; }
.meg-host { color: #3d4652; }
.meg-hidden { color: var(--bad); font-family: ui-monospace, monospace; }
.meg-findings { margin: 4px 0; padding-left: 18px; }
.meg-finding-error { color: var(--bad); }
.meg-finding-warning { color: var(--warn); }
.target-line { display: flex; align-items: center; gap: 6px; flex-wrap: wrap; }
.state { display: inline-block; font: 600 11px/1.6 ui-monospace, monospace; padding: 0 6px; border-radius: 10px; background: ` +
  `#e8ecf1; color: #33404f; white-space: nowrap; }
.state-expired { background: #fde2e1; color: var(--bad); }
.state-out-of-band-pending, .state-completion-notified, .state-user-retry { background: #fff0c2; color: #7a4d00; }
.state-user-review, .state-navigation-accepted, .state-created { background: #e3ecfb; color: #1c4a8f; }
.state-requirement-verified, .state-nested-server-continues, .state-error-retry-eligible, .state-optional-client-retry { ` +
  `background: #e1f3e6; color: #1a6a31; }
.state-original-response-accepted, .state-retry-response-accepted { background: #1a7f37; color: #fff; }
.state-cancelled, .state-declined { background: #eceef1; color: #5b6573; }
.overdue { font-size: 11px; color: var(--bad); font-weight: 600; }
.flash { padding: 9px 12px; border-radius: 8px; margin: 0 0 12px; border: 1px solid; }
.flash-ok { background: #e9f7ee; border-color: #a6dcb5; color: #0f5323; }
.flash-refused { background: #fdecec; border-color: #f2b8b5; color: #7a1410; }
.actions { display: flex; flex-direction: column; gap: 8px; }
form.action { display: flex; gap: 10px; align-items: center; margin: 0; }
.hint { color: var(--muted); font-size: 12.5px; }
dl.record { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0; }
dl.record dt { color: var(--muted); font: 12.5px/1.5 ui-monospace, monospace; }
dl.record dd { margin: 0; overflow-wrap: anywhere; }
.schema { font: 12px ui-monospace, monospace; color: var(--muted); font-weight: 400; }
ol.timeline { list-style: none; margin: 0; padding: 0 0 0 14px; border-left: 2px solid var(--line); }
ol.timeline li { position: relative; padding: 4px 0 4px 10px; }
ol.timeline li::before { content: ""; position: absolute; left: -20px; top: 11px; width: 10px; height: 10px; border-radius: ` +
  `50%; background: var(--accent); }
ol.timeline .when { color: var(--muted); font-size: 12.5px; margin-right: 6px; }
.trigger { color: var(--muted); }
.decision { font-weight: 600; }
.decision-accept { color: var(--good); }
.decision-decline, .decision-cancel { color: var(--bad); }
.cards { display: flex; gap: 12px; flex-wrap: wrap; margin: 10px 0; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; min-width: 190px; ` +
  `display: flex; flex-direction: column; }
.card .big { font-size: 22px; font-weight: 600; }
.card span:last-child { color: var(--muted); font-size: 12.5px; }
svg.chart { max-width: 100%; height: auto; }
.chart-label { font-size: 12px; fill: #33404f; }
.chart-value { font-size: 12px; fill: #33404f; font-weight: 600; }
.bar-notice { fill: #1f5fbf; }
.bar-hand { fill: #1a7f37; }
.bar-answer { fill: #6b5bd6; }
.bar-lost { fill: #b42318; }
.issuing { font-weight: 700; padding: 1px 8px; border-radius: 10px; }
.issuing-open { background: #e1f3e6; color: #1a6a31; }
.issuing-stopped { background: #fde2e1; color: var(--bad); }
.confirm { border-left: 4px solid var(--bad); padding-left: 12px; }
form.login { display: flex; gap: 10px; align-items: end; }
`;

export const APP_JS = `
'use strict';
// The one piece of script on the page: "copy" puts a value on the clipboard. URLs are never links.
document.addEventListener('click', function (event) {
  var button = event.target instanceof Element ? event.target.closest('button.copy') : null;
  if (button === null) return;
  var value = button.getAttribute('data-copy') || '';
  var done = function (label) {
    button.textContent = label;
    setTimeout(function () { button.textContent = 'copy'; }, 1500);
  };
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(value).then(function () { done('copied'); }, function () { done('copy failed'); });
  } else {
    done('copy failed');
  }
});
`;
