/**
 * A first install of the AWS emulator's Python tools says what it is doing: each step, and
 * pip's package of the moment. Run with a stand-in for Python (a shell script answering the
 * probe, `-m venv` and `-m pip install` as they answer) in a throwaway tools folder, so
 * nothing is downloaded and the project's own `.tools/venv` is never touched.
 */
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ensurePythonTools,
  PINNED_PYTHON_PACKAGES,
  PythonToolsUnavailableError,
  pipActivity,
} from '../../../local/aws-emulator/python-tools';

/** pip's output for an install of two packages, as `pip install --progress-bar off` prints it. */
const PIP_OUTPUT = [
  'Collecting moto==5.2.5 (from moto[server]==5.2.5)',
  '  Downloading moto-5.2.5-py3-none-any.whl.metadata (12 kB)',
  'Collecting werkzeug!=2.2.0,>=0.5 (from moto[server]==5.2.5)',
  'Installing collected packages: werkzeug, moto',
  'Successfully installed moto-5.2.5 werkzeug-3.1.3',
];

/** A stand-in for python3; `pipExit` is what its pip install ends with. */
const fakePython = (pipExit: number): string => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'fake-python-')), 'python3');
  writeFileSync(
    file,
    `#!/bin/sh
case "$1 $2" in
  "-c "*) exit 0 ;;
  "-m venv") mkdir -p "$3/bin" && for tool in python moto_server ministack cfn-lint; do cp "$0" "$3/bin/$tool"; done; exit 0 ;;
  "-m pip") printf '%s\\n' ${PIP_OUTPUT.map((line) => `'${line}'`).join(' ')}; echo 'pip says no' >&2; exit ${pipExit} ;;
esac
exit 1
`,
  );
  chmodSync(file, 0o755);
  return file;
};

const recordingProgress = () => {
  const seen: string[] = [];
  return {
    seen,
    progress: {
      step: (text: string) => seen.push(`step: ${text}`),
      detail: (text: string) => seen.push(`detail: ${text}`),
    },
  };
};

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('ensurePythonTools on a first run', () => {
  it('reports each step and what pip is collecting, then nothing once installed', async () => {
    // Prepare
    vi.stubEnv('PYTHON', fakePython(0));
    const toolsDir = mkdtempSync(path.join(tmpdir(), 'tools-'));
    const { seen, progress } = recordingProgress();

    // Act
    const tools = await ensurePythonTools({ progress, toolsDir });
    const reportedByFirst = [...seen];
    await ensurePythonTools({ progress, toolsDir });

    // Assess
    expect(reportedByFirst).toEqual([
      'step: looking for Python 3 with venv and pip',
      `step: creating the virtualenv ${path.join(toolsDir, 'venv')}`,
      `step: installing ${PINNED_PYTHON_PACKAGES.join(', ')} with pip (about 40 s)`,
      'detail: collecting moto (1 package so far)',
      'detail: collecting werkzeug (2 packages so far)',
      'detail: installing 2 packages',
    ]);
    expect(seen).toEqual(reportedByFirst);
    expect(tools.motoServer).toBe(path.join(toolsDir, 'venv', 'bin', 'moto_server'));
  });

  it('names pip and its output when the install fails, and installs again next time', async () => {
    // Prepare
    vi.stubEnv('PYTHON', fakePython(1));
    const toolsDir = mkdtempSync(path.join(tmpdir(), 'tools-'));

    // Act
    const first = ensurePythonTools({ toolsDir });

    // Assess
    await expect(first).rejects.toThrow(PythonToolsUnavailableError);
    await expect(first).rejects.toThrow(/pip install .* failed \(is PyPI reachable\?\)/);
    await expect(first).rejects.toThrow('pip says no');
    vi.stubEnv('PYTHON', fakePython(0));
    await expect(ensurePythonTools({ toolsDir })).resolves.toMatchObject({
      python: path.join(toolsDir, 'venv', 'bin', 'python'),
    });
  });
});

describe('pipActivity', () => {
  it('ignores every line but a package being collected and the final install', () => {
    // Prepare
    const activity = pipActivity();

    // Act
    const said = ['Requirement already satisfied: pip', ...PIP_OUTPUT].map(activity);

    // Assess
    expect(said).toEqual([
      undefined,
      'collecting moto (1 package so far)',
      undefined,
      'collecting werkzeug (2 packages so far)',
      'installing 2 packages',
      undefined,
    ]);
  });
});
