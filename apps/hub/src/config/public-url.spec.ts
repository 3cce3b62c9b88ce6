import { parsePublicUrl, projectPageUrl } from './public-url';

describe('FLOTILLA_PUBLIC_URL', () => {
  it('keeps an http(s) base, without its trailing slash', () => {
    expect(parsePublicUrl('https://flotilla.example.com/')).toEqual({ url: 'https://flotilla.example.com' });
    expect(parsePublicUrl('http://10.0.0.1:8080/fleet//')).toEqual({ url: 'http://10.0.0.1:8080/fleet' });
  });

  it('refuses what is no page address, or could carry a secret or a second meaning', () => {
    for (const bad of ['flotilla.example.com', 'ftp://f.example', 'javascript:alert(1)', 'https://user:pw@f.example', 'https://f.example/?a=1', 'https://f.example/#/x', `https://f.example/${'a'.repeat(600)}`]) {
      expect(parsePublicUrl(bad)).toEqual({ problem: expect.stringContaining('FLOTILLA_PUBLIC_URL=') });
    }
  });

  it("links to a Project's view, its name encoded", () => {
    expect(projectPageUrl('https://f.example', 'shop')).toBe('https://f.example/#/projects/shop');
    expect(projectPageUrl('https://f.example/fleet', 'a b&c')).toBe('https://f.example/fleet/#/projects/a%20b%26c');
  });
});
