/*
 * The tests' throwaway PostgreSQL: product code (the durability scenario) starts one too, so it lives in
 * lib/launcher/ beside embedded-postgres.ts; the harness knows it by this name.
 */
export {
  startThrowawayCluster as startTestCluster,
  type ThrowawayCluster as TestCluster,
} from '../launcher/throwaway-cluster';
