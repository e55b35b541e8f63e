import { describe, expect, it } from 'vitest';
import { argvToObject, parseOptions } from '../../../tools/loadtest/options.js';

describe('load-test options', () => {
  it('turns flags into camelCase fields, with --flag=value and negated booleans', () => {
    expect(
      argvToObject(['--hot-posts', '3', '--json=r.json', '--compare', '--no-raw-ceiling']),
    ).toEqual({
      hotPosts: '3',
      json: 'r.json',
      compare: true,
      rawCeiling: false,
    });
  });

  it('defaults to a short direct run of the regrid design', () => {
    const o = parseOptions([]);
    expect(o).toMatchObject({ mode: 'direct', design: 'regrid', designs: ['regrid'] });
    expect(o.stop).toEqual({ kind: 'moves', count: 2000 });
  });

  it('runs every design with --compare and stops by duration when asked', () => {
    const o = parseOptions(['--compare', '--duration', '30']);
    expect(o.designs).toEqual(['regrid', 'naive', 'postgres']);
    expect(o.stop).toEqual({ kind: 'duration', seconds: 30 });
  });

  it('rejects unknown flags, non-loopback targets and contradictory choices', () => {
    expect(() => parseOptions(['--profile', '3'])).toThrow(/profile/);
    expect(() => parseOptions(['--target', 'http://example.com:8080'])).toThrow(/loopback/);
    expect(() => parseOptions(['--moves', '5', '--duration', '5'])).toThrow(/one of/);
    expect(() => parseOptions(['--target', 'http://127.0.0.1:8080', '--direct'])).toThrow(/one of/);
    expect(() => parseOptions(['--posts', '2', '--hot-posts', '3'])).toThrow(/hot-posts|hotPosts/);
    expect(() => parseOptions(['--moves'])).toThrow(/argument missing/);
  });

  it('drives the PostgreSQL peer on a loopback URL, defaulting to the local server', () => {
    const o = parseOptions(['--design', 'postgres']);
    expect(o).toMatchObject({ designs: ['postgres'] });
    expect(o.pgUrl).toBe('postgres://postgres@127.0.0.1:5432/regrid_bench');
    const own = parseOptions(['--design', 'postgres', '--pg-url', 'postgres://u@localhost/x']);
    expect(own.pgUrl).toBe('postgres://u@localhost/x');
    expect(() => parseOptions(['--pg-url', 'postgres://db.example.com/x'])).toThrow(/loopback/);
    expect(() =>
      parseOptions(['--design', 'postgres', '--target', 'http://127.0.0.1:8080']),
    ).toThrow(/in-process/);
  });

  it('takes the JWT secret from defaults (the environment) when no flag is given', () => {
    const o = parseOptions(['--target', 'http://127.0.0.1:8080'], { jwtSecret: 'x'.repeat(32) });
    expect(o).toMatchObject({ mode: 'http', jwtSecret: 'x'.repeat(32) });
  });

  it('a node fault on the ring: killed at P%, back halfway to the end unless told', () => {
    expect(parseOptions(['--cluster', '3', '--kill-node-at', '50%']).fault).toEqual({
      node: 3,
      killAt: 0.5,
      restartAt: 0.75,
    });
    const o = parseOptions(['--cluster', '3', '--kill-node-at', '0%', '--restart-node-at', '100%', '--kill-node', '2']); // prettier-ignore
    expect(o.fault).toEqual({ node: 2, killAt: 0, restartAt: 1 });
    expect(parseOptions([]).fault).toBeNull();
    expect(() => parseOptions(['--kill-node-at', '50%'])).toThrow(/cluster 3/);
    expect(() => parseOptions(['--cluster', '3', '--kill-node-at', '50'])).toThrow(/share/);
    expect(() => parseOptions(['--cluster', '3', '--kill-node-at', '50%', '--restart-node-at', '40%'])).toThrow(/after/); // prettier-ignore
    expect(() => parseOptions(['--cluster', '3', '--kill-node-at', '5%', '--kill-node', '4'])).toThrow(/outside/); // prettier-ignore
  });
});
