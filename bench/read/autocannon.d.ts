// The subset of autocannon 8's API the read benchmark uses (the package ships no types).
declare module 'autocannon' {
  interface Histogram {
    average: number;
    p50: number;
    p99: number;
    total: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
  }
  interface Options {
    url: string;
    duration?: number;
    connections?: number;
    workers?: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
