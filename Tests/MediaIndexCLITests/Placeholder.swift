import Testing
@testable import MediaIndexCLI
