import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

import { PATH_METADATA } from '@nestjs/common/constants';
import { QueueKeys } from 'bullmq';
import { parse, parseAllDocuments } from 'yaml';

import { AppConfig } from '../config/app-config';
import { readSlice, type Variable } from '../config/settings';
import { HealthController } from '../observability/health.controller';
import { serveHealth } from '../observability/health-server';
import { RUNS_QUEUE } from '../runs/run.job';
import { runsSettings } from '../runs/runs.settings';
import { SETTINGS } from './all-settings';

/**
 * deploy/k8s (docs/operations.md "Deploying on Kubernetes"): every manifest that a kustomization lists, validated against the
 * Kubernetes and KEDA schemas (kubernetes-models, @kubernetes-models/keda), then held to what the code says:
 * the settings the containers get, the health paths and ports, the shutdown grace, the queue keys KEDA reads,
 * the commands. test/integration/k8s-queue-lists.int-spec.ts checks those keys against BullMQ on a real Redis.
 */
const ROOT = path.resolve(__dirname, '../..');
const K8S = path.join(ROOT, 'deploy/k8s');
const BASE = path.join(K8S, 'base');

/** The Secret the pods and KEDA read (created by hand, docs/operations.md), each key with a value of the right shape. */
const SECRET = 'agent-orchestrator';
const SECRET_EXAMPLES: Record<string, string> = {
  DATABASE_URL: 'postgres://agents:secret@postgres:5432/agents',
  REDIS_URL: 'redis://:secret@redis:6379',
  API_KEYS: 'me:0123456789abcdef0123456789abcdef',
  LLM_API_KEY: 'sk-example',
  STREAM_TICKET_SECRET: '0123456789abcdef0123456789abcdef0123456789abcdef',
  KEDA_REDIS_ADDRESS: 'redis:6379',
  KEDA_REDIS_PASSWORD: 'secret',
};
/** What a terminating pod needs beyond its preStop hook and RUN_SHUTDOWN_GRACE_MS: hand running turns back, close. */
const SHUTDOWN_MARGIN_S = 10;
/** the kustomization fields this test applies (namespace and images are checked with the overlay); any other fails */
const HANDLED_FIELDS = ['apiVersion', 'kind', 'resources', 'labels', 'namespace', 'images'];

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [field: string]: any;
}
interface Listed {
  file: string;
  object: K8sObject;
}
interface Kustomization {
  dir: string;
  body: Record<string, any>;
}

/** The kustomization in `dir` and those below it through `resources` (folders), with the objects of the files listed. */
function load(dir: string, into = { kustomizations: [] as Kustomization[], objects: [] as Listed[], files: new Set<string>() }) {
  const body = parse(readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8')) as Record<string, any>;
  into.kustomizations.push({ dir, body });
  for (const entry of (body.resources ?? []) as string[]) {
    const target = path.resolve(dir, entry);
    if (!existsSync(target)) throw new Error(`${path.relative(ROOT, dir)}/kustomization.yaml lists ${entry}, which does not exist`);
    if (statSync(target).isDirectory()) {
      load(target, into);
      continue;
    }
    into.files.add(target);
    for (const doc of parseAllDocuments(readFileSync(target, 'utf8'))) {
      if (doc.errors.length > 0) throw new Error(`${path.relative(ROOT, target)}: ${doc.errors[0].message}`);
      into.objects.push({ file: target, object: doc.toJSON() as K8sObject });
    }
  }
  return into;
}

function filesBelow(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesBelow(path.join(dir, e.name)) : [path.join(dir, e.name)],
  );
}

/**
 * Each object validated in a Node process of its own: the models are ES modules only, which jest's CommonJS
 * module system cannot load. One answer per object: null, or the schema's complaint.
 */
function validateSchemas(objects: K8sObject[]): (string | null)[] {
  const script = `
    import { readFileSync } from 'node:fs';
    const answers = [];
    for (const object of JSON.parse(readFileSync(0, 'utf8'))) {
      const models = object.apiVersion.split('/')[0].endsWith('keda.sh') ? '@kubernetes-models/keda' : 'kubernetes-models';
      try {
        const module = await import(models + '/' + object.apiVersion + '/' + object.kind);
        new module[object.kind](object).validate();
        answers.push(null);
      } catch (err) {
        answers.push(err.message);
      }
    }
    console.log(JSON.stringify(answers));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    input: JSON.stringify(objects),
    encoding: 'utf8',
    env: { PATH: process.env.PATH },
  });
  if (run.status !== 0) throw new Error(`the schema check did not run: ${run.stderr}`);
  return JSON.parse(run.stdout) as (string | null)[];
}

const kustomizationDirs = filesBelow(K8S)
  .filter((f) => path.basename(f) === 'kustomization.yaml')
  .map((f) => path.dirname(f));
const base = load(BASE);
const objects = base.objects.map((l) => l.object);

function the(kind: string, name?: string): K8sObject {
  const found = objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (found.length !== 1) throw new Error(`deploy/k8s/base: ${found.length} ${kind}${name ? ` named ${name}` : ''}, expected one`);
  return found[0];
}

/** The pod templates: each Deployment's and Job's. */
const workloads = objects.filter((o) => o.kind === 'Deployment' || o.kind === 'Job');
const containersOf = (o: K8sObject): any[] => o.spec.template.spec.containers;
/** what a container runs: `node dist/<x>.js` */
const scriptOf = (c: any): string => (c.command as string[])[1];
const byScript = (script: string): K8sObject => {
  const found = workloads.filter((o) => containersOf(o).some((c) => scriptOf(c) === script));
  if (found.length !== 1) throw new Error(`${found.length} workloads run ${script}, expected one`);
  return found[0];
};
const api = byScript('dist/main.js');
const worker = byScript('dist/worker.js');

/** A container's environment as the process sees it: its ConfigMaps, its own values, the Secret's examples. */
function envOf(container: any): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    if (!from.configMapRef)
      throw new Error(`${container.name}: envFrom other than a ConfigMap (name each Secret key with env[].valueFrom)`);
    Object.assign(env, the('ConfigMap', from.configMapRef.name).data);
  }
  for (const e of container.env ?? []) {
    if (typeof e.value === 'string') env[e.name] = e.value;
    else if (e.valueFrom?.secretKeyRef) env[e.name] = secretExample(e.valueFrom.secretKeyRef);
    else throw new Error(`${container.name}: env ${e.name} is neither a value nor a Secret key`);
  }
  return env;
}

function secretExample(ref: { name: string; key: string }): string {
  if (ref.name !== SECRET) throw new Error(`a Secret named ${ref.name}: the manifests use one, ${SECRET}`);
  const example = SECRET_EXAMPLES[ref.key];
  if (example === undefined)
    throw new Error(`Secret key ${ref.key}: add it to SECRET_EXAMPLES and to docs/operations.md "Deploying on Kubernetes"`);
  return example;
}

const configOf = (o: K8sObject) => new AppConfig(envOf(containersOf(o)[0]));

describe('deploy/k8s: the kustomizations', () => {
  it('list files that exist, and every manifest file is listed', () => {
    const listed = new Set<string>();
    for (const dir of kustomizationDirs) for (const file of load(dir).files) listed.add(file);
    const manifests = filesBelow(K8S).filter((f) => /\.ya?ml$/.test(f) && path.basename(f) !== 'kustomization.yaml');
    expect(manifests.filter((f) => !listed.has(f)).map((f) => path.relative(ROOT, f))).toEqual([]);
    expect(manifests.length).toBeGreaterThan(0);
  });

  it('use only the fields this test applies', () => {
    for (const dir of kustomizationDirs) {
      const unhandled = Object.keys(load(dir).kustomizations[0].body).filter((k) => !HANDLED_FIELDS.includes(k));
      expect([path.relative(ROOT, dir), unhandled]).toEqual([path.relative(ROOT, dir), []]);
    }
  });

  it('overlays: the image they replace is the one the base runs, their namespace is the one they create', () => {
    const images = new Set(workloads.flatMap((o) => containersOf(o).map((c) => c.image as string)));
    for (const dir of kustomizationDirs.filter((d) => d !== BASE)) {
      const { kustomizations, objects: theirs } = load(dir);
      const overlay = kustomizations[0].body;
      for (const image of overlay.images ?? []) expect([dir, image.name, images.has(image.name)]).toEqual([dir, image.name, true]);
      if (overlay.namespace) {
        const namespaces = theirs.filter((l) => l.object.kind === 'Namespace').map((l) => l.object.metadata.name);
        expect(namespaces).toEqual([overlay.namespace]);
      }
    }
  });
});

describe('deploy/k8s/base: the schemas', () => {
  it('every object is valid against the Kubernetes or KEDA schema of its kind', () => {
    const answers = validateSchemas(objects);
    const problems = objects.map((o, n) => answers[n] && `${o.kind}/${o.metadata.name}: ${answers[n]}`).filter(Boolean);
    expect(problems).toEqual([]);
    expect(answers).toHaveLength(objects.length);
  });

  it('the check catches an invalid object, and a kind it has no schema for', () => {
    const broken = structuredClone(api);
    broken.spec.template.spec.containers[0].ports[0].containerPort = 'http';
    const [invalid, unknown] = validateSchemas([broken, { apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledThing', metadata: { name: 'x' } }]);
    expect(invalid).toMatch(/containerPort must be integer/);
    expect(unknown).toMatch(/Cannot find (module|package)/);
  });
});

describe('deploy/k8s/base: the workloads', () => {
  const known = new Set(SETTINGS.flatMap((s) => Object.keys(s.variables as Record<string, Variable>)));

  it('set only variables the settings slices read, with values the service accepts', () => {
    for (const workload of workloads) {
      const env = envOf(containersOf(workload)[0]);
      expect([workload.metadata.name, Object.keys(env).filter((name) => !known.has(name))]).toEqual([workload.metadata.name, []]);
      expect(() => new AppConfig(env)).not.toThrow();
    }
  });

  it("run scripts the build makes from src/, the migrations Job the package's migrate command", () => {
    for (const workload of workloads) {
      for (const c of containersOf(workload)) {
        expect(c.command).toEqual(['node', expect.stringMatching(/^dist\/.+\.js$/)]);
        expect([scriptOf(c), existsSync(path.join(ROOT, scriptOf(c).replace(/^dist\/(.+)\.js$/, 'src/$1.ts')))]).toEqual([
          scriptOf(c),
          true,
        ]);
      }
    }
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    expect(containersOf(the('Job'))[0].command).toEqual(['node', pkg.bin['agent-orchestrator-migrate']]);
  });

  it('leave the migrations to the Job: the pods start with DB_MIGRATIONS_RUN off, the Job has DATABASE_URL', () => {
    expect(configOf(api).migrationsRun).toBe(false);
    expect(configOf(worker).migrationsRun).toBe(false);
    expect(configOf(the('Job')).databaseUrl).toBeDefined();
    expect(the('Job').spec.template.spec.restartPolicy).toBe('Never');
  });

  it('API pods only enqueue and serve; workers have the Postgres and Redis that worker.ts requires', () => {
    expect(configOf(api).runWorker).toBe(false);
    expect(configOf(api).redisUrl).toBeDefined();
    expect(configOf(worker).redisUrl).toBeDefined();
    expect(configOf(worker).databaseUrl).toBeDefined();
  });

  it('API replicas share one stream-ticket secret, so a ticket one pod issued opens a socket on another', () => {
    expect(api.spec.replicas).toBeGreaterThan(1);
    expect(configOf(api).streamTickets.secret).toBe(SECRET_EXAMPLES.STREAM_TICKET_SECRET);
  });

  it('run as a non-root user, without privilege escalation or capabilities, on a read-only root with /tmp writable', () => {
    for (const workload of workloads) {
      const pod = workload.spec.template.spec;
      for (const c of containersOf(workload)) {
        const sc = { ...pod.securityContext, ...c.securityContext };
        const facts = {
          runAsNonRoot: sc.runAsNonRoot,
          numericNonRootUser: Number.isInteger(sc.runAsUser) && sc.runAsUser > 0,
          allowPrivilegeEscalation: sc.allowPrivilegeEscalation,
          dropsAll: (sc.capabilities?.drop ?? []).includes('ALL'),
          addsNone: (sc.capabilities?.add ?? []).length === 0,
          seccomp: sc.seccompProfile?.type,
          readOnlyRootFilesystem: sc.readOnlyRootFilesystem,
          tmp: (c.volumeMounts ?? []).some(
            (m: any) => m.mountPath === '/tmp' && pod.volumes?.some((v: any) => v.name === m.name && v.emptyDir),
          ),
          serviceAccountToken: pod.automountServiceAccountToken,
        };
        expect([workload.metadata.name, facts]).toEqual([
          workload.metadata.name,
          {
            runAsNonRoot: true,
            numericNonRootUser: true,
            allowPrivilegeEscalation: false,
            dropsAll: true,
            addsNone: true,
            seccomp: 'RuntimeDefault',
            readOnlyRootFilesystem: true,
            // the Job's container writes nothing; the others write below /tmp (generative-UI bundles, the sandbox probe)
            tmp: workload.kind === 'Deployment',
            serviceAccountToken: false,
          },
        ]);
        expect([c.name, c.resources?.requests?.cpu, c.resources?.requests?.memory, c.resources?.limits?.memory].every(Boolean)).toBe(true);
      }
    }
  });

  it('select their own pods', () => {
    for (const d of objects.filter((o) => o.kind === 'Deployment')) {
      expect(d.spec.template.metadata.labels).toMatchObject(d.spec.selector.matchLabels);
    }
  });
});

describe('deploy/k8s/base: probes', () => {
  /** the probe's port as a number: a containerPort's name, or the number itself */
  const portOf = (c: any, probe: any): number =>
    typeof probe.httpGet.port === 'number' ? probe.httpGet.port : c.ports.find((p: any) => p.name === probe.httpGet.port)?.containerPort;
  const probesOf = (c: any) => ({ startup: c.startupProbe, liveness: c.livenessProbe, readiness: c.readinessProbe });
  const paths = (c: any) => Object.fromEntries(Object.entries(probesOf(c)).map(([k, p]) => [k, p?.httpGet?.path]));

  it('every Deployment container: startup and liveness on /health/live, readiness on /health/ready', () => {
    for (const d of objects.filter((o) => o.kind === 'Deployment')) {
      for (const c of containersOf(d)) {
        expect([d.metadata.name, paths(c)]).toEqual([
          d.metadata.name,
          { startup: '/health/live', liveness: '/health/live', readiness: '/health/ready' },
        ]);
      }
    }
  });

  it('the API: on PORT, paths its HealthController serves', () => {
    const routes = ['live', 'ready'].map(
      (method) =>
        `/${Reflect.getMetadata(PATH_METADATA, HealthController)}/${Reflect.getMetadata(PATH_METADATA, (HealthController.prototype as any)[method])}`,
    );
    const c = containersOf(api)[0];
    for (const probe of Object.values(probesOf(c))) {
      expect(routes).toContain(probe.httpGet.path);
      expect(portOf(c, probe)).toBe(configOf(api).port);
    }
  });

  it('the worker: on WORKER_HEALTH_PORT, paths its health server answers', async () => {
    const c = containersOf(worker)[0];
    const server = await serveHealth([], 0, '127.0.0.1');
    try {
      for (const probe of Object.values(probesOf(c))) {
        expect(portOf(c, probe)).toBe(configOf(worker).workerHealthPort);
        expect([probe.httpGet.path, (await fetch(`http://127.0.0.1:${server.port}${probe.httpGet.path}`)).status]).toEqual([
          probe.httpGet.path,
          200,
        ]);
      }
    } finally {
      await server.close();
    }
  });

  it('terminationGracePeriodSeconds covers the preStop hook, RUN_SHUTDOWN_GRACE_MS and a margin', () => {
    const defaultGraceMs = readSlice(runsSettings, {}).durability.shutdownGraceMs;
    for (const d of [api, worker]) {
      const c = containersOf(d)[0];
      const sleep = c.lifecycle?.preStop?.exec?.command;
      const preStopS = sleep ? Number(sleep[1]) : 0;
      if (sleep) expect(sleep).toEqual(['sleep', expect.stringMatching(/^\d+$/)]);
      // the pod's RUN_SHUTDOWN_GRACE_MS, and never less than the default (what a ConfigMap without it gives)
      const graceMs = configOf(d).durability.shutdownGraceMs;
      const needed = preStopS + Math.ceil(Math.max(graceMs, defaultGraceMs) / 1000) + SHUTDOWN_MARGIN_S;
      expect([d.metadata.name, d.spec.template.spec.terminationGracePeriodSeconds >= needed]).toEqual([d.metadata.name, true]);
    }
  });
});

describe('deploy/k8s/base: Service, disruption budgets', () => {
  it('the Service sends to the API pods, on a port the API container names', () => {
    const service = the('Service');
    expect(api.spec.template.metadata.labels).toMatchObject(service.spec.selector);
    expect(worker.spec.template.metadata.labels).not.toMatchObject(service.spec.selector);
    const names = containersOf(api)[0].ports.map((p: any) => p.name);
    for (const port of service.spec.ports) expect(names).toContain(port.targetPort);
  });

  it('each Deployment has one PodDisruptionBudget', () => {
    const budgets = objects.filter((o) => o.kind === 'PodDisruptionBudget');
    for (const d of objects.filter((o) => o.kind === 'Deployment')) {
      const covering = budgets.filter((b) =>
        Object.entries(b.spec.selector.matchLabels).every(([k, v]) => d.spec.template.metadata.labels[k] === v),
      );
      expect([d.metadata.name, covering.length]).toEqual([d.metadata.name, 1]);
    }
  });
});

describe('deploy/k8s/base: the workers scale on the run queue (KEDA)', () => {
  const scaled = the('ScaledObject');

  it('targets the worker Deployment, which leaves its replicas to KEDA, and keeps one worker at least', () => {
    expect(scaled.spec.scaleTargetRef).toEqual({ name: worker.metadata.name });
    expect(worker.spec.replicas).toBeUndefined();
    expect(scaled.spec.minReplicaCount).toBeGreaterThanOrEqual(1);
    expect(scaled.spec.maxReplicaCount).toBeGreaterThanOrEqual(scaled.spec.minReplicaCount);
  });

  it("reads the BullMQ wait and active lists of the runs queue, under the workers' QUEUE_PREFIX", () => {
    const keys = new QueueKeys(configOf(worker).queuePrefix).getKeys(RUNS_QUEUE);
    const lists = Object.fromEntries(scaled.spec.triggers.map((t: any) => [t.name, [t.type, t.metadata.listName]]));
    expect(lists).toEqual({ wait: ['redis', keys.wait], active: ['redis', keys.active] });
  });

  it('aims at WORKER_CONCURRENCY queued and running runs per worker', () => {
    const modifiers = scaled.spec.advanced.scalingModifiers;
    expect(new Set(modifiers.formula.match(/[A-Za-z_]\w*/g))).toEqual(new Set(['wait', 'active']));
    expect(modifiers).toMatchObject({ target: String(configOf(worker).workerConcurrency), metricType: 'AverageValue' });
  });

  it("reaches Redis with the pods' Secret", () => {
    for (const trigger of scaled.spec.triggers) {
      const auth = the('TriggerAuthentication', trigger.authenticationRef.name);
      const params = auth.spec.secretTargetRef.map((r: any) => r.parameter);
      expect(params).toContain('address');
      for (const ref of auth.spec.secretTargetRef) expect(() => secretExample(ref)).not.toThrow();
    }
    expect(SECRET_EXAMPLES.KEDA_REDIS_ADDRESS).toMatch(/^[^:/]+:\d+$/); // host:port, not a URL
  });
});

describe('docs/operations.md "Deploying on Kubernetes"', () => {
  it('creates the Secret with every key the manifests read', () => {
    const page = readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8');
    const start = page.indexOf('## Deploying on Kubernetes');
    expect(start).toBeGreaterThan(-1);
    const section = page.slice(start, page.indexOf('\n## ', start + 1));
    const documented = new Set([...section.matchAll(/--from-literal=(\w+)=/g)].map((m) => m[1]));
    const read = new Set<string>();
    for (const w of workloads)
      for (const e of containersOf(w)[0].env ?? []) if (e.valueFrom?.secretKeyRef) read.add(e.valueFrom.secretKeyRef.key);
    for (const auth of objects.filter((o) => o.kind === 'TriggerAuthentication'))
      for (const r of auth.spec.secretTargetRef) read.add(r.key);
    expect([...read].sort()).toEqual([...documented].sort());
  });
});
