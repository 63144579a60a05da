/** Moved to local/aws-emulator/ (the local run uses it too); kept so test imports keep working. */
export * from '../../local/aws-emulator/moto-server';
