/**
 * A browser without a browser: one cookie jar per origin, redirects followed by hand so the test
 * sees every hop, and nothing but what the test sets sent to each origin.
 */
export class TestBrowser {
  private readonly jars = new Map<string, Map<string, string>>();

  /** Sets a cookie for an origin, as a login on that site would have. */
  setCookie(origin: string, name: string, value: string): void {
    this.jar(origin).set(name, value);
  }

  /** The `Cookie` header this browser would send to `origin` (every cookie; the test server's paths are few). */
  cookieHeader(origin: string): string | null {
    const cookies = [...this.jar(origin)].map(([name, value]) => `${name}=${value}`).join('; ');
    return cookies === '' ? null : cookies;
  }

  /** Forgets a cookie, as a signed-out or expired session would. */
  deleteCookie(origin: string, name: string): void {
    this.jar(origin).delete(name);
  }

  /** One GET, cookies in and out, no redirect followed. */
  async get(url: string): Promise<Response> {
    const target = new URL(url);
    const cookies = [...this.jar(target.origin)].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(target, { redirect: 'manual', headers: cookies === '' ? {} : { cookie: cookies } });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      if (at <= 0) continue;
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (/;\s*expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.jar(target.origin).delete(name);
      else this.jar(target.origin).set(name, value);
    }
    return response;
  }

  /**
   * Follows redirects from `url` until a response is not a redirect or the next hop satisfies
   * `stopBefore`; returns the last response and, when stopped, the URL it would have gone to.
   */
  async follow(
    url: string,
    stopBefore: (next: URL) => boolean = () => false,
    maxHops = 20,
  ): Promise<{ readonly response: Response; readonly stoppedAt: string | null; readonly hops: readonly string[] }> {
    const hops: string[] = [url];
    let current = url;
    for (let hop = 0; hop < maxHops; hop += 1) {
      const response = await this.get(current);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || location === null) return { response, stoppedAt: null, hops };
      await response.arrayBuffer();
      const next = new URL(location, current);
      if (stopBefore(next)) return { response, stoppedAt: next.href, hops };
      current = next.href;
      hops.push(current);
    }
    throw new Error(`more than ${maxHops} redirects from ${new URL(url).origin}`);
  }

  private jar(origin: string): Map<string, string> {
    let jar = this.jars.get(origin);
    if (jar === undefined) {
      jar = new Map();
      this.jars.set(origin, jar);
    }
    return jar;
  }
}
