/** @type {import('next').NextConfig} */
const nextConfig = {
  // Keep Next from writing an AGENTS.md into the repository.
  agentRules: false,
  // Opening the dev server as 127.0.0.1 must still hydrate.
  allowedDevOrigins: ['127.0.0.1'],
  // pg is used by server code only; keep it a plain Node require instead of bundling it.
  serverExternalPackages: ['pg'],
};

export default nextConfig;
