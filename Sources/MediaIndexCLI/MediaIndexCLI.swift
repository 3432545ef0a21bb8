public enum MediaIndexCLI {}
