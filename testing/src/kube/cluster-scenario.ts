// Cluster scenarios shared by the kind run (kind-test/) and the loopback end-to-end tests: a driver, API requests that
// follow 307s, waiting for cameras to record or move, the archive gap from the listing, and watching a rolling update.
export { loopbackDriver, type ClusterDriver } from './cluster-scenario/driver.js';
export { apiJson, apiRequest, type ApiAnswer } from './cluster-scenario/api.js';
export { readCameras, waitForCameras, waitForMove, waitForRecording, type CameraState, type WaitOptions } from './cluster-scenario/cameras.js';
export { largestGap, listSegments, measureArchiveGap, spansOf, type Gap, type SegmentRecord, type Span } from './cluster-scenario/archive.js';
export { recorderPodStates, RollTracker, watchRoll, type RecorderPodState } from './cluster-scenario/rolling.js';
export { runKindScenario, type KindScenarioOptions, type KindScenarioResult } from './cluster-scenario/kind-scenario.js';
export { forwardedPort, kubectlDriver, parseServiceUrl, type KubectlDriver, type KubectlDriverOptions } from './cluster-scenario/kubectl-driver.js';
