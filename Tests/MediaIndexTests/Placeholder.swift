import Testing
@testable import MediaIndex
