import { describe, expect, it, vi } from 'vitest';
import { assertOpenableUrl, functionOpener, systemBrowserOpener, type Launch } from '../../../src/adapters/sdk/opener.js';

const URL_WITH_SECRET_QUERY = 'https://accounts.example.com/authorize?state=s3cr3t-value&x=1|2&y=^3';

/** A launcher that records its call and then starts (or fails to start) like the real one. */
function fakeLaunch(outcome: 'start' | 'error') {
  const calls: { url: string; options: { wait: false } }[] = [];
  const unref = vi.fn();
  const launch: Launch = async (url, options) => {
    calls.push({ url, options });
    if (outcome === 'error') throw Object.assign(new Error('spawn xdg-open ENOENT'), { code: 'ENOENT' });
    return { unref };
  };
  return { launch, calls, unref };
}

describe('systemBrowserOpener', () => {
  it('hands the exact URL to the browser launcher without waiting for it, and lets the host exit', async () => {
    const fake = fakeLaunch('start');
    await systemBrowserOpener({ launch: fake.launch })(URL_WITH_SECRET_QUERY);
    expect(fake.calls).toEqual([{ url: URL_WITH_SECRET_QUERY, options: { wait: false } }]);
    expect(fake.unref).toHaveBeenCalledTimes(1);
  });

  it('rejects when the browser cannot start, without the URL in the message', async () => {
    const fake = fakeLaunch('error');
    const error = await Promise.resolve(systemBrowserOpener({ launch: fake.launch })(URL_WITH_SECRET_QUERY)).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(error).toMatchObject({ code: 'E_GUARD_INTERNAL' });
    expect(error!.message).toContain('ENOENT');
    expect(error!.message).not.toContain('s3cr3t');
  });

  it.each([
    ['javascript:alert(1)', 'a "javascript:" URL'],
    ['file:///etc/passwd', 'a "file:" URL'],
    ['data:text/html,<script>1</script>', 'a "data:" URL'],
    ['--help', 'not an absolute URL'],
    ['https://example.com/a b', 'whitespace or control characters'],
    [' https://example.com/', 'whitespace or control characters'],
  ])('refuses %s and starts nothing', async (url, why) => {
    const fake = fakeLaunch('start');
    await expect(Promise.resolve().then(() => systemBrowserOpener({ launch: fake.launch })(url))).rejects.toThrow(why);
    expect(fake.calls).toHaveLength(0);
  });
});

describe('functionOpener', () => {
  it('hands an http(s) URL to the host function and refuses other schemes before calling it', async () => {
    const open = vi.fn();
    const opener = functionOpener(open);
    await opener('http://127.0.0.1:8080/consent');
    expect(open).toHaveBeenCalledWith('http://127.0.0.1:8080/consent');
    await expect(Promise.resolve().then(() => opener('vbscript:msgbox'))).rejects.toMatchObject({ code: 'E_URL_BLOCKED' });
    expect(open).toHaveBeenCalledTimes(1);
  });

  it('assertOpenableUrl names the scheme, never the URL', () => {
    expect(() => assertOpenableUrl('ftp://files.example.com/?token=s3cr3t')).toThrow(/"ftp:"/);
    try {
      assertOpenableUrl('ftp://files.example.com/?token=s3cr3t');
    } catch (error) {
      expect((error as Error).message).not.toContain('s3cr3t');
    }
  });
});
