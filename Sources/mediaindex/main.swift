import MediaIndexCLI

await CommandRunner.main(root: MediaIndexCommand.self)
