import { Either, Option } from "effect";
import { type AppConfig, loadAppConfig } from "./app-config.js";
import { type DatabaseConfig, loadDatabaseConfig } from "./database-config.js";

/** What the service and its commands read from the environment. */
export interface ServiceConfig {
  readonly app: AppConfig;
  readonly database: DatabaseConfig;
}

/**
 * Reads the service's configuration for `main` and the commands (migrate, rekey). When a value is bad it
 * writes every problem of both parts to stderr and exits with status 2, so a deploy fails before touching
 * anything.
 */
export const loadServiceConfigOrExit = async (): Promise<ServiceConfig> => {
  const [app, database] = await Promise.all([loadAppConfig(), loadDatabaseConfig()]);
  if (Either.isRight(app) && Either.isRight(database)) return { app: app.right, database: database.right };
  const problems = [Either.getLeft(app), Either.getLeft(database)].flatMap(Option.toArray);
  process.stderr.write(`${problems.join("\n")}\n`);
  process.exit(2);
};
