/**
 * The Kubernetes manifests of deploy/kubernetes/ against the gateway they deploy: every document
 * parses and names itself, kustomization.yaml lists exactly the files there, and the probes, the
 * ports, the shutdown timing, the labels and the secrets agree with the code and with each other;
 * the Ingress passes what deploy/nginx.conf passes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '../../src/base/config/config.js';
import { HEALTH_PATH, READINESS_PATH } from '../../src/pages/operator/health.js';
import { section } from '../helpers/docs.js';
import { SHIPPED_CONFIG as NGINX_CONF } from '../helpers/nginx.js';

const DIRECTORY = new URL('../../deploy/kubernetes/', import.meta.url);
const INGRESS_NGINX = 'nginx.ingress.kubernetes.io/';
const KUSTOMIZATION = 'kustomization.yaml';
/** Variables that belong in the Secret, never in a manifest. */
const SECRET_VARIABLES = ['OAUTH_CLIENT_SECRET', 'GATEWAY_API_KEYS'];
/** What SIGTERM needs besides the preStop sleep and SHUTDOWN_GRACE_MS: the WebSocket close (1 s at most), then releasing connections. */
const MIN_SHUTDOWN_MARGIN_S = 2;

interface Manifest {
  file: string;
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: any;
  data?: Record<string, string>;
}

const files = readdirSync(DIRECTORY).filter((name) => name.endsWith('.yaml') || name.endsWith('.yml')).sort();
const manifests = files.filter((file) => file !== KUSTOMIZATION).flatMap((file) => parseFile(file).map((document) => ({ ...document, file }) as Manifest));

const kinds = (kind: string) => manifests.filter((manifest) => manifest.kind === kind);
const one = (kind: string, name: string) => {
  const found = manifests.filter((manifest) => manifest.kind === kind && manifest.metadata?.name === name);
  if (found.length !== 1) throw new Error(`expected one ${kind} ${name}, but found ${found.length}`);
  return found[0]!;
};
const deployment = one('Deployment', 'vending-graph');
const redis = one('Deployment', 'vending-graph-redis');
const configMap = one('ConfigMap', 'vending-graph');
const gatewayPod = deployment.spec.template;
const gateway = gatewayPod.spec.containers.find((container: any) => container.name === 'gateway');
const gatewayLabels: Record<string, string> = gatewayPod.metadata.labels;
const redisLabels: Record<string, string> = redis.spec.template.metadata.labels;
/** The gateway's configuration as the pods get it, with a stand-in for the Secret. */
const podConfig = () => loadConfig({ NODE_ENV: 'production', ...configMap.data, OAUTH_CLIENT_SECRET: 'from-the-secret' });

describe('deploy/kubernetes', () => {
  it('parses every document of every file, each with an apiVersion, a kind and a name', () => {
    expect(manifests.length).toBeGreaterThanOrEqual(8);
    for (const manifest of manifests) {
      expect(manifest.apiVersion, manifest.file).toMatch(/^([a-z0-9.-]+\/)?v\d+((alpha|beta)\d+)?$/);
      expect(manifest.kind, manifest.file).toMatch(/^[A-Z]\w+$/);
      expect(manifest.metadata.name, manifest.file).toMatch(/^[a-z0-9][a-z0-9-]*$/);
    }
  });

  it('lists in kustomization.yaml exactly the files of the directory, and no Secret is among them', () => {
    const [kustomization] = parseFile(KUSTOMIZATION);
    expect(kustomization).toMatchObject({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization' });
    expect([...kustomization!.resources].sort()).toEqual(files.filter((file) => file !== KUSTOMIZATION));
    expect(kinds('Secret')).toEqual([]);
  });

  it("probes the gateway's own health paths on the container port, which is the configured port", () => {
    const port = gateway.ports.find((entry: any) => entry.name === 'http');
    expect(port.containerPort).toBe(loadConfig({}).port);
    expect(port.containerPort).toBe(podConfig().port);
    expect(gateway.livenessProbe.httpGet).toEqual({ path: HEALTH_PATH, port: 'http' });
    expect(gateway.readinessProbe.httpGet).toEqual({ path: READINESS_PATH, port: 'http' });
    // /readyz answers at once, never waiting for the upstream's token endpoint, like /healthz.
    expect(gateway.readinessProbe.timeoutSeconds).toBeLessThanOrEqual(gateway.livenessProbe.timeoutSeconds);
  });

  it('routes the Service to that port, and it and the PodDisruptionBudget select the gateway pods only', () => {
    const service = one('Service', 'vending-graph');
    expect(service.spec.ports.map((entry: any) => entry.targetPort)).toEqual(['http']);
    for (const selector of [service.spec.selector, one('PodDisruptionBudget', 'vending-graph').spec.selector.matchLabels]) {
      expect(selects(selector, gatewayLabels)).toBe(true);
      expect(selects(selector, redisLabels)).toBe(false);
    }
    expect(deployment.spec.selector.matchLabels).toEqual(gatewayLabels);
  });

  it('leaves the replica count to the HorizontalPodAutoscaler, at 2 at least, and lets one pod go at a time', () => {
    const hpa = one('HorizontalPodAutoscaler', 'vending-graph');
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: deployment.apiVersion, kind: 'Deployment', name: deployment.metadata.name });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);
    expect(hpa.spec.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: expect.any(Number) } } }]);
    expect(deployment.spec.replicas).toBeUndefined();
    const pdb = one('PodDisruptionBudget', 'vending-graph');
    expect(pdb.apiVersion).toBe('policy/v1');
    expect(pdb.spec.maxUnavailable === 1 || pdb.spec.minAvailable === 1).toBe(true);
  });

  it('gives a stopping pod its preStop sleep, then SHUTDOWN_GRACE_MS and a margin, before SIGKILL', () => {
    expect(configMap.data).toHaveProperty('SHUTDOWN_GRACE_MS');
    const [command, seconds, ...rest] = gateway.lifecycle.preStop.exec.command;
    expect([command, rest]).toEqual(['sleep', []]);
    const sleepS = Number(seconds);
    expect(sleepS).toBeGreaterThan(0);
    const graceS = podConfig().shutdownGraceMs / 1000;
    expect(gatewayPod.spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(sleepS + graceS + MIN_SHUTDOWN_MARGIN_S);
  });

  it('runs every container as a non-root user, on a read-only root filesystem, without capabilities', () => {
    const expected = {
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    };
    for (const pod of kinds('Deployment').map((manifest) => manifest.spec.template.spec)) {
      for (const container of pod.containers) {
        const effective = { ...pod.securityContext, ...container.securityContext };
        expect(effective, container.name).toMatchObject(expected);
        expect(effective.runAsUser, container.name).toBeGreaterThan(0);
      }
    }
    // The Dockerfile's `USER node`: uid 1000 in the node images.
    expect({ ...gatewayPod.spec.securityContext, ...gateway.securityContext }.runAsUser).toBe(1000);
  });

  it('sets CPU and memory requests and limits on every container, each limit at least its request', () => {
    for (const container of kinds('Deployment').flatMap((manifest) => manifest.spec.template.spec.containers)) {
      const { requests, limits } = container.resources;
      for (const resource of ['cpu', 'memory']) {
        expect(quantity(limits[resource]), `${container.name} ${resource}`).toBeGreaterThanOrEqual(quantity(requests[resource]));
      }
    }
  });

  it('takes the client secret from the Secret, and sets only variables the gateway reads', () => {
    const secretEnv = gateway.env.filter((entry: any) => SECRET_VARIABLES.includes(entry.name));
    expect(secretEnv.map((entry: any) => entry.name).sort()).toEqual([...SECRET_VARIABLES].sort());
    for (const entry of secretEnv) expect(entry).toEqual({ name: entry.name, valueFrom: { secretKeyRef: expect.objectContaining({ key: entry.name }) } });
    expect(secretEnv.find((entry: any) => entry.name === 'OAUTH_CLIENT_SECRET').valueFrom.secretKeyRef.optional).toBeUndefined();
    expect(gateway.envFrom).toEqual([{ configMapRef: { name: configMap.metadata.name } }]);
    for (const name of SECRET_VARIABLES) expect(configMap.data).not.toHaveProperty(name);
    const documented = new Set([...documentedVariables().matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((match) => match[1]));
    expect(Object.keys(configMap.data!).filter((name) => !documented.has(name))).toEqual([]);
    expect(podConfig().upstream).toBeDefined();
  });

  it('points REDIS_URL at the example Redis, which keeps nothing, evicts least recently used keys with an expiry and admits the gateway only', () => {
    const { topology, answersMaxBytes } = podConfig().redis!;
    if (topology.kind !== 'single') throw new Error(`the example Redis is one server, not a ${topology.kind}`);
    const url = new URL(topology.url);
    const service = one('Service', url.hostname);
    expect(service.spec.ports.map((entry: any) => entry.port)).toEqual([Number(url.port)]);
    expect(selects(service.spec.selector, redisLabels)).toBe(true);
    const container = redis.spec.template.spec.containers[0];
    const args: string[] = container.args;
    const option = (name: string) => args[args.indexOf(name) + 1];
    // Keys with an expiry only: never the fleet's token or a lock (src/redis/eviction-policy.ts).
    expect([option('--save'), option('--appendonly'), option('--maxmemory-policy')]).toEqual(['', 'no', 'volatile-lru']);
    expect(quantity(option('--maxmemory')!)).toBeLessThan(quantity(container.resources.limits.memory));
    expect(answersMaxBytes).toBeLessThan(quantity(option('--maxmemory')!) / 2); // room for the data entries
    const policy = one('NetworkPolicy', url.hostname);
    expect(selects(policy.spec.podSelector.matchLabels, redisLabels)).toBe(true);
    expect(policy.spec.ingress).toHaveLength(1);
    expect(policy.spec.ingress[0].from).toEqual([{ podSelector: { matchLabels: gatewayLabels } }]);
  });

  it("sends every path to the Service through ingress-nginx, with deploy/nginx.conf's timeouts and body limit, unbuffered and uncompressed", () => {
    const ingress = one('Ingress', 'vending-graph');
    expect(ingress.apiVersion).toBe('networking.k8s.io/v1');
    expect(ingress.spec.ingressClassName).toBe('nginx');
    const service = one('Service', 'vending-graph');
    for (const rule of ingress.spec.rules) {
      expect(rule.http.paths).toEqual([{ path: '/', pathType: 'Prefix', backend: { service: { name: service.metadata.name, port: { name: 'http' } } } }]);
    }
    expect(service.spec.ports.map((entry: any) => entry.name)).toContain('http');
    const annotations = ingress.metadata.annotations ?? {};
    const annotation = (name: string) => annotations[`${INGRESS_NGINX}${name}`];
    const graphql = nginxBlock(/location \/graphql \{([^}]*)\}/);
    expect(Number(annotation('proxy-read-timeout'))).toBe(seconds(nginxValue(graphql, 'proxy_read_timeout')));
    expect(Number(annotation('proxy-send-timeout'))).toBe(seconds(nginxValue(graphql, 'proxy_send_timeout')));
    expect(seconds(nginxValue(graphql, 'proxy_read_timeout'))).toBeGreaterThanOrEqual(3600);
    expect(annotation('proxy-buffering')).toBe('off');
    expect(annotation('proxy-body-size')).toBe(nginxValue(nginxBlock(/server \{([\s\S]*)\}/), 'client_max_body_size'));
    // Compression stays the gateway's: nothing here turns nginx's on (snippets could).
    expect(Object.keys(annotations).filter((name) => /gzip|brotli|snippet/.test(name))).toEqual([]);
    expect(nginxValue(nginxBlock(/http \{([\s\S]*)\}/), 'gzip')).toBe('off');
  });
});

// Private: the text a pattern's first group catches in deploy/nginx.conf.
function nginxBlock(pattern: RegExp): string {
  const match = pattern.exec(readFileSync(NGINX_CONF, 'utf8'));
  if (!match) throw new Error(`deploy/nginx.conf has nothing matching ${pattern}`);
  return match[1]!;
}

// Private: the value of a directive set once at the top of `block` (its own line).
function nginxValue(block: string, directive: string): string {
  const values = [...block.matchAll(new RegExp(`^\\s*${directive}\\s+([^;]+);`, 'gm'))].map((match) => match[1]!);
  if (values.length !== 1) throw new Error(`expected ${directive} once, but found ${JSON.stringify(values)}`);
  return values[0]!;
}

// Private: an nginx time (`20s`, `1h`, `3600`) in seconds.
function seconds(time: string): number {
  const match = /^(\d+)(s|m|h)?$/.exec(time);
  if (!match) throw new Error(`not an nginx time: ${JSON.stringify(time)}`);
  return Number(match[1]) * { s: 1, m: 60, h: 3600 }[match[2] ?? 's']!;
}

// Private: the documents of one file; throws on a YAML error or warning, or an empty document.
function parseFile(file: string): any[] {
  return parseAllDocuments(readFileSync(new URL(file, DIRECTORY), 'utf8')).map((document, i) => {
    const problems = [...document.errors, ...document.warnings];
    if (problems.length > 0) throw new Error(`${file}, document ${i + 1}: ${problems.join('; ')}`);
    const value: unknown = document.toJS();
    if (typeof value !== 'object' || value === null) throw new Error(`${file}, document ${i + 1}: not a mapping, but got: ${JSON.stringify(value)}`);
    return value;
  });
}

// Private: whether a label selector (matchLabels) picks a pod with these labels.
function selects(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.keys(selector).length > 0 && Object.entries(selector).every(([key, value]) => labels[key] === value);
}

// Private: a Kubernetes quantity (`500m`, `1`, `384Mi`) or a Redis size (`256mb`) as a number.
function quantity(text: string | number): number {
  const match = /^(\d+(?:\.\d+)?)(m|Ki|Mi|Gi|kb|mb|gb)?$/.exec(String(text));
  if (!match) throw new Error(`not a quantity: ${JSON.stringify(text)}`);
  const units: Record<string, number> = { m: 1e-3, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, kb: 2 ** 10, mb: 2 ** 20, gb: 2 ** 30 };
  return Number(match[1]) * (units[match[2] ?? ''] ?? 1);
}

// Private: the table of variables the gateway reads (docs/configuration.md).
function documentedVariables(): string {
  return section('## Configuration');
}
