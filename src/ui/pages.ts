/**
 * The query page's HTML. Every value goes through `html` (escaped); URLs of flows are shown as
 * text with their registrable domain highlighted (`renderUrl`) and are never links: the only way
 * to take one away is the explicit "copy" control.
 */
import type { FlowView } from '../core/flows.js';
import type { BusinessReceipt } from '../flow/records.js';
import { FLOW_STATES, type FlowState } from '../flow/states.js';
import type { StoredNavigation } from '../ledger/types.js';
import type { Policy } from '../policy/policy.js';
import { renderUrl } from '../render/index.js';
import { analyzeUrl } from '../url/index.js';
import { html, trusted, type Html } from './html.js';
import { actionsAllowed, AGE_FILTERS, duration, type FlowDetail, type FlowFilters, type FlowTable, type Reconciliation } from './model.js';
import type { RollbackState } from './rollback.js';
import type { Flash } from './security.js';

export interface PageContext {
  readonly csrf: string;
  readonly flash: Flash | null;
  readonly now: number;
  readonly policy: Policy;
  /** True when a live guard runs in this process (actions and rollback act on it). */
  readonly live: boolean;
}

type Tab = 'flows' | 'reconciliation' | 'rollback' | null;

function iso(ms: number): Html {
  const full = new Date(ms).toISOString();
  // Date and time each keep together; a narrow column breaks between them only.
  return html`<time datetime="${full}"><span>${full.slice(0, 10)}</span> <span>${full.slice(11, 19)}Z</span></time>`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function layout(title: string, tab: Tab, body: Html, ctx: { readonly flash: Flash | null } | null): string {
  const nav = (name: Exclude<Tab, null>, label: string, href: string) =>
    html`<a href="${href}"${tab === name ? trusted(' aria-current="page"') : ''}>${label}</a>`;
  const flash = ctx?.flash ?? null;
  const banner =
    flash === null
      ? ''
      : html`<div class="flash flash-${flash.kind}" role="status">${
          flash.code === null ? '' : html`<code class="code">${flash.code}</code> `
        }${flash.text}</div>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} · mcp-elicitation-guard</title>
<link rel="stylesheet" href="/static/app.css">
<script src="/static/app.js" defer></script>
</head>
<body>
<header class="top">
<span class="brand">mcp-elicitation-guard</span>
<nav>${
    ctx === null
      ? ''
      : [nav('flows', 'Flows', '/'), nav('reconciliation', 'Reconciliation', '/reconciliation'), nav('rollback', 'Rollback', '/rollback')]
  }</nav>
</header>
<main>
${banner}
${body}
</main>
</body>
</html>
`.toString();
}

function stateBadge(state: FlowState, overdue = false): Html {
  return html`<span class="state state-${state.toLowerCase().replace(/_/g, '-')}">${state}</span>${
    overdue ? html` <span class="overdue" title="pending past its expiry; no guard has recorded EXPIRED yet">past expiry</span>` : ''
  }`;
}

const analyses = new Map<string, Html>();

function originOf(stored: StoredNavigation): string {
  const t = stored.record.target;
  return `${t.scheme}://${t.host}${t.port === null ? '' : `:${t.port}`}`;
}

/** The target origin with its registrable domain highlighted, as `renderUrl` draws it. */
function targetHtml(stored: StoredNavigation, policy: Policy): Html {
  const origin = originOf(stored);
  let rendered = analyses.get(origin);
  if (rendered === undefined) {
    try {
      rendered = trusted(renderUrl(analyzeUrl(origin, policy).display, 'html'));
    } catch {
      rendered = html`<div class="meg-url"><p class="meg-url-full">${origin}</p></div>`;
    }
    if (analyses.size > 500) analyses.clear();
    analyses.set(origin, rendered);
  }
  return rendered;
}

function copyControl(value: string, label: string): Html {
  return html`<button type="button" class="copy" data-copy="${value}" aria-label="${label}">copy</button>`;
}

function hiddenCsrf(csrf: string): Html {
  return html`<input type="hidden" name="csrf" value="${csrf}">`;
}

// ------------------------------------------------------------------ flows

/** `nav_6d5f8692…`: enough to tell flows apart in a table; the flow's page has the whole id. */
function shortId(id: string): string {
  return id.length > 16 ? `${id.slice(0, 12)}…` : id;
}

export function flowsPage(table: FlowTable, filters: FlowFilters, ctx: PageContext): string {
  const option = (value: string, label: string, selected: boolean) =>
    html`<option value="${value}"${selected ? trusted(' selected') : ''}>${label}</option>`;
  const form = html`<form class="filters" method="get" action="/">
<label>State <select name="state">${option('', 'any', filters.state === null)}${FLOW_STATES.map((s) =>
    option(s, s, filters.state === s),
  )}</select></label>
<label>Server <select name="server">${option('', 'any', filters.server === null)}${table.servers.map((s) =>
    option(s, s, filters.server === s),
  )}</select></label>
<label>Created <select name="age">${option('', 'any time', filters.age === null)}${Object.entries(AGE_FILTERS).map(([k, v]) =>
    option(k, v.label, filters.age === k),
  )}</select></label>
<button type="submit">Filter</button>
${filters.state !== null || filters.server !== null || filters.age !== null ? html`<a class="reset" href="/">clear</a>` : ''}
</form>`;
  const rows = table.rows.map(
    (r) => html`<tr class="${r.overdue || r.stored.flow.state === 'EXPIRED' ? 'attention' : ''}">
<td>${stateBadge(r.stored.flow.state, r.overdue)}</td>
<td class="flow"><a class="flow-link" href="/flows/${encodeURIComponent(r.stored.record.id)}" title="${r.stored.record.id}">${shortId(
      r.stored.record.id,
    )}</a></td>
<td class="nowrap">${r.server}</td>
<td class="nowrap">${
      r.subjectDigest === null ? html`<span class="none">none</span>` : html`<code title="sha256 of the subject">${r.subjectDigest}</code>`
    }</td>
<td class="purpose">${r.stored.record.purpose}</td>
<td class="target">${targetHtml(r.stored, ctx.policy)}</td>
<td>${iso(r.stored.record.createdAt)}</td>
<td>${iso(r.stored.record.expiresAt)}</td>
<td class="nowrap">${duration(r.timeInState)}</td>
</tr>`,
  );
  const body = html`<h1>Flows</h1>
<p class="lead">URL-mode flows in the ledger: expired and pending ones first. Open one to retry it, confirm it or cancel it.</p>
${form}
${
  table.truncated
    ? html`<p class="note">Showing the newest ${table.window} flows${filters.state === null ? '' : ` in ${filters.state}`} only.</p>`
    : ''
}
${
  table.rows.length === 0
    ? html`<p class="empty">No flows${
        filters.state !== null || filters.server !== null || filters.age !== null ? ' match these filters' : ' in the ledger yet'
      }.</p>`
    : html`<table class="flows">
<thead><tr><th>State</th><th>Flow</th><th>Server</th><th>Subject</th><th>Purpose</th><th>Target</th><th>${trusted(
        `Created</th><th>Expires</th><th class="nowrap">In state</th></tr></thead>`,
      )}
<tbody>${rows}</tbody>
</table>`
}`;
  return layout('Flows', 'flows', body, ctx);
}

// ------------------------------------------------------------------ one flow

function field(name: string, value: Html | string | number | null): Html {
  return html`<dt>${name}</dt><dd>${value === null ? html`<span class="none">null</span>` : value}</dd>`;
}

function businessHtml(receipt: BusinessReceipt): Html {
  return html`<dl class="record">
${field('id', html`<code>${receipt.id}</code>`)}
${field('lineage', `${receipt.lineage.kind} (session ${receipt.lineage.session})`)}
${field('request id', JSON.stringify(receipt.requestId))}
${field('retry generation', receipt.retryGeneration)}
${field(
  'rests on consent receipts',
  receipt.requirementReceiptIds.length === 0
    ? 'none'
    : html`${receipt.requirementReceiptIds.map((id, i) => html`${i > 0 ? ', ' : ''}<code>${id}</code>`)}`,
)}
${field('response sha256', html`<code>${receipt.responseDigest}</code>`)}
${field('accepted at', iso(receipt.at))}
</dl>`;
}

export function flowPage(detail: FlowDetail, live: FlowView | null, ctx: PageContext): string {
  const { stored } = detail;
  const r = stored.record;
  const allowed = actionsAllowed(stored.flow.state);
  const action = (name: 'retry' | 'confirm' | 'cancel', label: string, hint: string) =>
    html`<form method="post" action="/flows/${encodeURIComponent(r.id)}/${name}" class="action">
${hiddenCsrf(ctx.csrf)}
<button type="submit" name="action" value="${name}" class="button-${name}"${allowed[name] ? '' : trusted(' disabled')}>${label}</button>
<span class="hint">${hint}</span>
</form>`;
  const lineageKind = detail.business[0]?.lineage.kind ?? live?.lineage ?? null;
  const body = html`<p class="crumbs"><a href="/">Flows</a> / <code>${r.id}</code></p>
<h1>Flow <code>${r.id}</code></h1>
<p class="now">${stateBadge(stored.flow.state, detail.overdue)} ${
    stored.flow.trigger === null ? '' : html`on <code>${stored.flow.trigger}</code>, `
  }since ${iso(stored.flow.updatedAt)} (${duration(Math.max(0, ctx.now - stored.flow.updatedAt))})</p>
<section class="panel">
<h2>Actions</h2>
<p class="note">${
    ctx.live && live !== null
      ? 'This flow belongs to the guard running in this process: the actions go through it.'
      : 'The actions move the flow in the ledger, as the ledger command does.'
  }</p>
<div class="actions">
${action('retry', 'Retry', 'take up a pending or expired flow again (→ USER_RETRY)')}
${action('confirm', 'I have finished', 'the step in the browser is done (→ REQUIREMENT_VERIFIED)')}
${action('cancel', 'Cancel', 'give the flow up (→ CANCELLED)')}
</div>
</section>
<section class="panel">
<h2>Where it sends the user</h2>
<div class="target-line">${targetHtml(stored, ctx.policy)} ${copyControl(`${originOf(stored)}`, 'copy the target address')}</div>
${
  live === null
    ? html`<p class="note">The ledger keeps the scheme, host and port only, and a digest of the whole URL.</p>`
    : html`<p class="note">The full URL, held in memory by the running guard (not in the ledger):</p>
<div class="target-line">${trusted(renderUrl(live.analysis.display, 'html', live.analysis.findings))} ${copyControl(
        live.url,
        'copy the full URL',
      )}</div>`
}
</section>
<section class="panel">
<h2>Navigation record <span class="schema">${r.schema}</span></h2>
<dl class="record">
${field('id', html`<code>${r.id}</code>`)}
${field('elicitationId', html`<code>${r.elicitationId}</code>`)}
${field(
  'server',
  `${r.server.name ?? '(no name)'} ${r.server.version ?? ''}`.trim() + (r.server.key === null ? '' : ` (key ${r.server.key})`),
)}
${field('subject', r.subject)}
${field('originalRequestDigest', r.originalRequestDigest === null ? null : html`<code>${r.originalRequestDigest}</code>`)}
${field('target', html`${r.target.scheme}://${r.target.host}${r.target.port === null ? '' : `:${r.target.port}`}`)}
${field('target.urlDigest', html`<code>${r.target.urlDigest}</code>`)}
${field('redirectPolicy', r.redirectPolicy === 'any' ? 'any' : r.redirectPolicy.length === 0 ? 'none' : r.redirectPolicy.join(', '))}
${field('purpose', html`<span class="purpose">${r.purpose}</span>`)}
${field('createdAt', iso(r.createdAt))}
${field('expiresAt', iso(r.expiresAt))}
${field('stateNonceDigest', html`<code>${r.stateNonceDigest}</code>`)}
${field('sessionGeneration', r.sessionGeneration)}
</dl>
</section>
<section class="panel">
<h2>History</h2>
<ol class="timeline">
${detail.history.map(
  (t) =>
    html`<li><span class="when">${iso(t.at)}</span> ${
      t.from === null ? html`<span class="none">recorded</span>` : stateBadge(t.from)
    } → ${stateBadge(t.to)}${t.trigger === null ? '' : html` <span class="trigger">on <code>${t.trigger}</code></span>`}</li>`,
)}
</ol>
</section>
<section class="panel">
<h2>Consent receipt</h2>
${
  detail.consents.length === 0
    ? html`<p class="empty">No consent decision recorded.</p>`
    : html`<table class="receipts"><thead><tr><th>Decision</th><th>Receipt</th><th>What was shown ${trusted(
        `(sha256)</th><th>At</th></tr></thead><tbody>`,
      )}
${detail.consents.map(
  (c) =>
    html`<tr><td><span class="decision decision-${c.decision}">${c.decision}${trusted(
      '</span></td><td><code>',
    )}${c.id}</code></td><td><code>${c.shownDigest}</code></td><td>${iso(c.at)}</td></tr>`,
)}
</tbody></table>`
}
</section>
<section class="panel">
<h2>Business receipt</h2>
${
  detail.business.length === 0
    ? html`<p class="empty">No original operation was accepted on this flow (yet).</p>`
    : detail.business.map(businessHtml)
}
</section>
<section class="panel">
<h2>Lineage</h2>
<dl class="record">
${field(
  'kind',
  lineageKind === null
    ? html`<span class="none">${
        r.originalRequestDigest === null
          ? 'none: the elicitation was not tied to a request'
          : 'not known from the ledger until an answer is accepted'
      }</span>`
    : lineageKind === 'nested'
      ? 'nested (inside the original request)'
      : 'error-retry (-32042, the original is sent again)',
)}
${field('original request sha256', r.originalRequestDigest === null ? null : html`<code>${r.originalRequestDigest}</code>`)}
</dl>
${
  detail.rounds.length === 0
    ? ''
    : html`<h3>Other rounds of the same request</h3><table class="receipts"><thead><tr><th>Flow</th><th>${trusted(
        `State</th><th>Created</th></tr></thead><tbody>`,
      )}
${detail.rounds.map(
  (s) =>
    html`<tr><td><a href="/flows/${encodeURIComponent(s.record.id)}">${s.record.id}</a></td><td>${stateBadge(s.flow.state)}</td><td>${iso(
      s.record.createdAt,
    )}</td></tr>`,
)}
</tbody></table>`
}
${detail.relatedBusiness.length === 0 ? '' : html`<h3>Accepted on another round</h3>${detail.relatedBusiness.map(businessHtml)}`}
</section>`;
  return layout(`Flow ${r.id}`, 'flows', body, ctx);
}

// ------------------------------------------------------------------ reconciliation

function chart(rec: Reconciliation): Html {
  const bars = [
    { label: 'verified by a notice', value: rec.verifiedBy.notice, kind: 'notice' },
    { label: 'confirmed by hand', value: rec.verifiedBy.hand, kind: 'hand' },
    { label: "the server's answer", value: rec.verifiedBy.serverAnswer, kind: 'answer' },
    { label: 'notices lost', value: rec.noticesLost, kind: 'lost' },
  ];
  const max = Math.max(1, ...bars.map((b) => b.value));
  const width = 520;
  const labelWidth = 170;
  const barArea = width - labelWidth - 50;
  const rowHeight = 28;
  const height = bars.length * rowHeight + 8;
  return html`<svg class="chart" role="img" aria-labelledby="chart-title" viewBox="0 0 ${width} ${height}"${trusted(
    ' width="',
  )}${width}" height="${height}" xmlns="http://www.w3.org/2000/svg">
<title id="chart-title">How requirements were verified, and notices lost</title>
${bars.map((b, i) => {
  const y = 4 + i * rowHeight;
  const w = Math.round((b.value / max) * barArea);
  return html`<text x="${labelWidth - 8}" y="${y + 17}" text-anchor="end" class="chart-label">${b.label}</text>
<rect x="${labelWidth}" y="${y + 4}" width="${Math.max(w, 1)}" height="${rowHeight - 10}" class="bar bar-${b.kind}"></rect>
<text x="${labelWidth + Math.max(w, 1) + 6}" y="${y + 17}" class="chart-value">${b.value}</text>`;
})}
</svg>`;
}

export function reconciliationPage(rec: Reconciliation, ctx: PageContext): string {
  const ms = (v: number | null) => (v === null ? html`<span class="none">no data</span>` : duration(v));
  const states = FLOW_STATES.filter((s) => (rec.byState.get(s) ?? 0) > 0);
  const body = html`<h1>Reconciliation</h1>
<p class="lead">${plural(rec.total, 'flow')}${rec.truncated ? ` (the newest ${rec.window})` : ''}.</p>
<div class="cards">
<div class="card"><span class="big">${ms(rec.timeToVerification.p50)}</span><span>time to verification, p50</span></div>
<div class="card"><span class="big">${ms(rec.timeToVerification.p99)}</span><span>time to verification, p99</span></div>
<div class="card"><span class="big">${rec.noticesLost}</span><span>notices lost (time to live ran out)</span></div>
<div class="card"><span class="big">${rec.verifiedBy.hand}</span><span>confirmed by hand</span></div>
</div>
<p class="note">Time to verification runs from opening the page to the requirement being verified, over ${plural(
    rec.timeToVerification.count,
    'verified flow',
  )}. Of the ${plural(rec.noticesLost, 'flow')} whose notice never came in time, ${rec.lostThenConfirmed} ${
    rec.lostThenConfirmed === 1 ? 'was' : 'were'
  } confirmed by hand and ${rec.lostStillWaiting} ${rec.lostStillWaiting === 1 ? 'is' : 'are'} still waiting.</p>
<section class="panel">
<h2>How requirements were met</h2>
${chart(rec)}
</section>
<section class="panel">
<h2>Flows per state</h2>
${
  states.length === 0
    ? html`<p class="empty">No flows in the ledger yet.</p>`
    : html`<table class="counts"><thead><tr><th>State</th><th>Flows</th></tr></thead><tbody>
${states.map((s) => html`<tr><td><a href="/?state=${s}">${stateBadge(s)}</a></td><td class="num">${rec.byState.get(s) ?? 0}</td></tr>`)}
</tbody></table>`
}
</section>`;
  return layout('Reconciliation', 'reconciliation', body, ctx);
}

// ------------------------------------------------------------------ rollback

export function rollbackPage(
  control: { readonly state: RollbackState; readonly scope: string } | null,
  ctx: PageContext,
  confirmRevoke = false,
): string {
  let controls: Html;
  if (control === null) {
    controls = html`<p>There is no switch to set here: no guard runs in this process and the ledger is in ${trusted(
      `memory, so nothing else follows it. State nonces live only in the memory of the guard that issued them.</p>`,
    )}
<p>Serve the page over a ledger file (<code>ledger serve --ledger FILE</code>) or beside a proxy (<code>proxy ${trusted(
      `--ui</code>), or set <code>"issuing": "stopped"</code> in the guard's policy file.</p>`,
    )}`;
  } else if (confirmRevoke) {
    controls = html`<div class="confirm">
<p><strong>Revoke every outstanding state nonce?</strong> Navigations the user accepted but that were not ${trusted(
      `opened yet can then never be opened. Flows stay as they are, neither failed nor succeeded, and can still be confirmed ` +
        `or cancelled here.</p>`,
    )}
<p class="note">This reaches ${control.scope}.</p>
<form method="post" action="/rollback/revoke" class="action">${hiddenCsrf(ctx.csrf)}<input type="hidden" ${trusted(
      `name="confirm" value="yes"><button type="submit" class="button-cancel">Yes, revoke them</button> <a href="/` +
        `rollback">keep them</a></form>`,
    )}
</div>`;
  } else {
    const { issuing, revokedAt } = control.state;
    const next = issuing === 'open' ? 'stopped' : 'open';
    controls = html`<p class="now">Issuing: <span class="issuing issuing-${issuing}">${issuing}</span></p>
<p class="note">${
      issuing === 'open'
        ? 'New URL elicitations reach the user after the guard checked them.'
        : 'Every new URL elicitation is declined with E_ISSUING_STOPPED; the ledger and this page stay readable.'
    } The switch reaches ${control.scope}.</p>
<form method="post" action="/rollback/issuing" class="action">${hiddenCsrf(ctx.csrf)}<input type="hidden" ${trusted(
      `name="issuing" value="`,
    )}${next}"><button type="submit" class="${
      next === 'stopped' ? 'button-cancel' : 'button-confirm'
    }">${next === 'stopped' ? 'Stop issuing' : 'Resume issuing'}</button></form>
<h2>Outstanding nonces</h2>
<p class="note">${revokedAt === null ? 'Never revoked.' : html`Last revoked ${iso(revokedAt)}.`}</p>
<form method="post" action="/rollback/revoke" class="action">${hiddenCsrf(ctx.csrf)}<button type="submit" ${trusted(
      `class="button-cancel">Revoke outstanding nonces…</button> <span class="hint">asks before it does anything</span></form>`,
    )}`;
  }
  const body = html`<h1>Rollback</h1>
<p class="lead">Stop issuing new URL elicitations and revoke the state nonces of navigations not opened yet, ${trusted(
    `keeping the ledger and this page.</p>`,
  )}
<section class="panel">${controls}</section>`;
  return layout('Rollback', 'rollback', body, ctx);
}

// ------------------------------------------------------------------ access

export function loginPage(failed: boolean): string {
  const body = html`<h1>Access key</h1>
<p class="lead">Open the access link printed when the page server started, or paste its key here.</p>
${failed ? html`<div class="flash flash-refused" role="alert">That key is not the one this server printed.</div>` : ''}
<form method="post" action="/login" class="login"><label>Key <input type="password" name="key" ${trusted(
    `autocomplete="off" required></label> <button type="submit">Open</button></form>`,
  )}`;
  return layout('Access key', null, body, null);
}

export function messagePage(title: string, text: string, ctx: PageContext | null): string {
  return layout(title, null, html`<h1>${title}</h1><p>${text}</p>`, ctx);
}
